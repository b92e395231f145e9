package dev.ratelimit.autoconfigure.actuate;

import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.actuate.RateLimitEndpoint;
import dev.ratelimit.actuate.RateLimitEndpointConfiguration;
import dev.ratelimit.actuate.RateLimitEndpointWebExtension;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Registers the {@code ratelimit} actuator endpoint when Actuator is present, exposed only as the
 * application's {@code management.endpoints.*} settings allow; the endpoint's bean is made by the
 * {@link RateLimitEndpointConfiguration} beside the endpoint, which builds it from the engine's registry.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(RateLimitRuleRegistry.class)
@ConditionalOnAvailableEndpoint(RateLimitEndpoint.class)
@Import(RateLimitEndpointConfiguration.class)
public final class RateLimitEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RateLimitEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	RateLimitEndpointWebExtension rateLimitEndpointWebExtension(RateLimitEndpoint endpoint) {
		return new RateLimitEndpointWebExtension(endpoint);
	}

}

package dev.ratelimit.autoconfigure.actuate;

import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.autoconfigure.RateLimitRulesReload;
import java.util.List;

import dev.ratelimit.rules.internal.TrustedProxies;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.actuate.RateLimitEndpoint;
import dev.ratelimit.actuate.RateLimitEndpointWebExtension;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.ForwardedHeader;
import dev.ratelimit.rules.internal.RateLimitPlans;
import dev.ratelimit.rules.internal.RateLimitRules;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code ratelimit} actuator endpoint when Actuator is present, exposed only as the
 * application's {@code management.endpoints.*} settings allow.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(RateLimitRules.class)
@ConditionalOnAvailableEndpoint(RateLimitEndpoint.class)
public final class RateLimitEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitEndpoint rateLimitEndpoint(RateLimitRules rules, RateLimitProperties properties,
			ObjectProvider<CircuitBreaker> circuitBreaker, ObjectProvider<RateLimitPlans> plans,
			ObjectProvider<RateLimitRulesReload> reload, ObjectProvider<ClientAddressResolver> addresses,
			ApplicationContext context) {
		RateLimitRulesReload rulesReload = reload.getIfAvailable();
		return RateLimitEndpoint.builder(rules)
			.failureMode(properties.getFailureMode())
			.circuitBreaker(circuitBreaker.getIfAvailable())
			.plans(plans.getIfAvailable(() -> RateLimitPlans.NONE))
			.reload((rulesReload != null) ? rulesReload::reload : null)
			.addresses(addresses.getIfAvailable(() -> new TrustedProxies(List.of(),
					ForwardedHeader.X_FORWARDED_FOR, properties.getIpv6PrefixLength())))
			.reactive(context instanceof ReactiveWebApplicationContext)
			.build();
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RateLimitEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	RateLimitEndpointWebExtension rateLimitEndpointWebExtension(RateLimitEndpoint endpoint) {
		return new RateLimitEndpointWebExtension(endpoint);
	}

}

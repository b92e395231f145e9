package dev.ratelimit.actuate;

import java.util.List;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.autoconfigure.RateLimitRulesReload;
import dev.ratelimit.rules.ForwardedHeader;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitPlanCache;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.rules.internal.RateLimitEngine;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Makes the {@link RateLimitEndpoint} from the engine's registry of rules, for
 * {@code dev.ratelimit.autoconfigure.actuate.RateLimitEndpointAutoConfiguration}, which imports it under its
 * conditions: it stands beside the endpoint, whose builder is package-private.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class RateLimitEndpointConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitEndpoint rateLimitEndpoint(RateLimitRuleRegistry rules, RateLimitProperties properties,
			ObjectProvider<CircuitBreaker> circuitBreaker, ObjectProvider<RateLimitPlanCache> plans,
			ObjectProvider<RateLimitRulesReload> reload, ObjectProvider<ClientAddressResolver> addresses,
			ObjectProvider<RateLimitOverrides> overrides, ApplicationContext context) {
		RateLimitRulesReload rulesReload = reload.getIfAvailable();
		return RateLimitEndpoint.builder(rules)
			.failureMode(properties.getFailureMode())
			.circuitBreaker(circuitBreaker.getIfAvailable())
			.plans(plans.getIfAvailable())
			.reload((rulesReload != null) ? rulesReload::reload : null)
			.addresses(addresses.getIfAvailable(() -> RateLimitEngine.trustedProxies(List.of(),
					ForwardedHeader.X_FORWARDED_FOR, properties.getIpv6PrefixLength())))
			.reactive(context instanceof ReactiveWebApplicationContext)
			.overrides(overrides.getIfUnique(() -> RateLimitOverrides.NONE))
			.build();
	}

}

package dev.ratelimit.autoconfigure.actuate;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.FailureMode;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.actuate.RateLimitHealthIndicator;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.LettuceScriptRunner;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code ratelimit} health contributor when Spring Boot's health support is present and
 * {@code management.health.ratelimit.enabled} is not {@code false}: whether Redis answers the decisions' connection
 * and holds the scripts, with the failure mode, the circuit breaker's state and the keys decided in memory. It is in
 * no health group by default (docs/operations.md shows how to add it to readiness). Decisions on another client than
 * Lettuce have no probe, and no such contributor.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean({ LettuceScriptRunner.class, CircuitBreaker.class })
@ConditionalOnEnabledHealthIndicator("ratelimit")
public final class RateLimitHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "ratelimitHealthIndicator")
	RateLimitHealthIndicator ratelimitHealthIndicator(LettuceScriptRunner runner, CircuitBreaker circuitBreaker,
			ObjectProvider<LocalRateLimiter> local, RateLimitProperties properties) {
		FailureMode mode = properties.getFailureMode();
		return RateLimitHealthIndicator.builder(runner::probe, circuitBreaker)
			.failureMode(mode)
			.local((mode == FailureMode.LOCAL) ? local.getIfAvailable() : null)
			.timeout(properties.getTimeout())
			.build();
	}

}

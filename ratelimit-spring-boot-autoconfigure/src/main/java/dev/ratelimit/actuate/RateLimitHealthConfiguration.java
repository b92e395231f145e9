package dev.ratelimit.actuate;

import java.time.Duration;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.FailureMode;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.LettuceScriptRunner;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Makes the {@code ratelimit} health indicator for
 * {@code dev.ratelimit.autoconfigure.actuate.RateLimitHealthContributorAutoConfiguration}, which imports it under
 * its conditions: it stands beside the indicator, which is package-private.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class RateLimitHealthConfiguration {

	/** The least a probe may wait: a health check is no decision, and need not fit in {@code ratelimit.timeout}. */
	private static final Duration LEAST_PROBE_TIMEOUT = Duration.ofSeconds(1);

	@Bean
	@ConditionalOnMissingBean(name = "ratelimitHealthIndicator")
	RateLimitHealthIndicator ratelimitHealthIndicator(LettuceScriptRunner runner, CircuitBreaker circuitBreaker,
			ObjectProvider<LocalRateLimiter> local, RateLimitProperties properties) {
		FailureMode mode = properties.getFailureMode();
		Duration timeout = properties.getTimeout();
		return new RateLimitHealthIndicator(runner, circuitBreaker, mode,
				(mode == FailureMode.LOCAL) ? local.getIfAvailable() : null,
				(timeout.compareTo(LEAST_PROBE_TIMEOUT) > 0) ? timeout : LEAST_PROBE_TIMEOUT);
	}

}

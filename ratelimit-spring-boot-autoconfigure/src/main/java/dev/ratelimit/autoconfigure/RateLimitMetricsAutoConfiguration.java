package dev.ratelimit.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.RateLimiterTimeoutException.Culprit;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.rules.internal.RateLimitEngine;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Publishes rate-limit metrics to Micrometer: decisions by rule and outcome, those near a limit by rule
 * ({@code ratelimit.metrics.near-limit-ratio}), decision latency,
 * rejections served by the local denial cache, whether Redis is available, and calls that timed out by
 * whose lateness.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class, before = RateLimitWebAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
public final class RateLimitMetricsAutoConfiguration {

	/** Rejections served from memory, without a Redis call. */
	static final String LOCAL_CACHE_REJECTIONS = "ratelimit.local.cache.rejections";

	/** 1 while Redis decides, 0 while its circuit breaker keeps calls away. */
	static final String REDIS_AVAILABLE = "ratelimit.redis.available";

	/** Calls Redis did not answer within {@code ratelimit.timeout}, tagged {@code cause=redis|client}. */
	static final String TIMEOUTS = "ratelimit.timeouts";

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitMeterBinder")
	MeterBinder rateLimitMeterBinder(ObjectProvider<LocalDenialCache> denialCache,
			ObjectProvider<CircuitBreaker> circuitBreaker, ObjectProvider<LettuceScriptRunner> runner) {
		return (registry) -> {
			runner.ifAvailable((scripts) -> {
				for (Culprit culprit : Culprit.values()) {
					FunctionCounter.builder(TIMEOUTS, scripts, (counted) -> counted.timeouts(culprit))
						.description("Rate-limit calls Redis did not answer within ratelimit.timeout, by whose lateness: "
								+ "Redis's, or this application's, kept from a CPU")
						.tag("cause", culprit.tag())
						.register(registry);
				}
			});
			denialCache.ifAvailable((cache) -> FunctionCounter.builder(LOCAL_CACHE_REJECTIONS, cache,
					LocalDenialCache::hits)
				.description("Rate-limit rejections served from memory, without a Redis call")
				.register(registry));
			circuitBreaker.ifAvailable((breaker) -> Gauge
				.builder(REDIS_AVAILABLE, breaker, (b) -> (b.state() == CircuitBreaker.State.CLOSED) ? 1 : 0)
				.description("Whether rate-limit decisions reach Redis (1) or its circuit breaker keeps them away (0)")
				.register(registry));
		};
	}

	/**
	 * The rules' decisions: web requests' and, in any application, those of {@code @RateLimited} bean methods.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.web.util.pattern.PathPattern")
	static class DecisionMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitMetricsObserver")
		RateLimitObserver rateLimitMetricsObserver(MeterRegistry registry,
				ObjectProvider<RateLimitProperties> properties) {
			double ratio = properties.getIfAvailable(RateLimitProperties::new).getMetrics().getNearLimitRatio();
			return PropertyErrors.check("ratelimit.metrics.near-limit-ratio", ratio,
					(checked) -> RateLimitEngine.Builder.micrometerObserver(registry, checked));
		}

	}

}

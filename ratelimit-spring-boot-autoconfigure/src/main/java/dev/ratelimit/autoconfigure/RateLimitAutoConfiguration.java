package dev.ratelimit.autoconfigure;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.FailureMode;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisKeys;
import dev.ratelimit.redis.RedisRateLimitOverrides;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.redis.SlidingWindowCounterRateLimiter;
import dev.ratelimit.redis.SlidingWindowRateLimiter;
import dev.ratelimit.redis.TokenBucketRateLimiter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Registers a Redis rate limiter bean per algorithm when a {@link RedisConnectionFactory} is present,
 * all sharing one script runner bounded by {@code ratelimit.timeout}, one circuit breaker, one local
 * denial cache and, in the {@code local} failure mode, one in-memory fallback; and the keys' overrides of their
 * rules' limits kept in Redis ({@code ratelimit.overrides.*}), unless the application has its own
 * {@link RateLimitOverrides}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@Import(RateLimitPropertiesConfiguration.class)
public final class RateLimitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisScriptRunner rateLimitScriptRunner(RedisConnectionFactory connectionFactory,
			ObjectProvider<StringRedisTemplate> templates) {
		// without Lettuce, a decision waits as long as the client's own timeout
		return RedisScriptRunner.of(templates.getIfUnique(() -> new StringRedisTemplate(connectionFactory)));
	}

	@Bean
	@ConditionalOnMissingBean
	CircuitBreaker rateLimitCircuitBreaker(RateLimitProperties properties) {
		RateLimitProperties.CircuitBreaker breaker = properties.getCircuitBreaker();
		return PropertyErrors.check("ratelimit.circuit-breaker", breaker,
				(settings) -> new CircuitBreaker("Redis", settings.getFailureThreshold(), settings.getOpenDuration()));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "ratelimit.local-cache.enabled", matchIfMissing = true)
	LocalDenialCache rateLimitDenialCache(RateLimitProperties properties) {
		return PropertyErrors.check("ratelimit.local-cache.max-keys", properties.getLocalCache().getMaxKeys(),
				LocalDenialCache::new);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = "ratelimit.failure-mode", havingValue = "local")
	LocalRateLimiter rateLimitLocalFallback(RateLimitProperties properties) {
		return PropertyErrors.check("ratelimit.local.max-keys", properties.getLocal().getMaxKeys(),
				LocalRateLimiter::new);
	}

	@Bean
	@ConditionalOnMissingBean
	FixedWindowRateLimiter fixedWindowRateLimiter(Limiters limiters) {
		return new FixedWindowRateLimiter(limiters.build(Algorithm.FIXED_WINDOW));
	}

	@Bean
	@ConditionalOnMissingBean
	SlidingWindowRateLimiter slidingWindowRateLimiter(Limiters limiters) {
		return new SlidingWindowRateLimiter(limiters.build(Algorithm.SLIDING_WINDOW_LOG));
	}

	@Bean
	@ConditionalOnMissingBean
	SlidingWindowCounterRateLimiter slidingWindowCounterRateLimiter(Limiters limiters) {
		return new SlidingWindowCounterRateLimiter(limiters.build(Algorithm.SLIDING_WINDOW_COUNTER));
	}

	@Bean
	@ConditionalOnMissingBean
	TokenBucketRateLimiter tokenBucketRateLimiter(Limiters limiters) {
		return new TokenBucketRateLimiter(limiters.build(Algorithm.TOKEN_BUCKET));
	}

	@Bean
	@ConditionalOnMissingBean
	GcraRateLimiter gcraRateLimiter(Limiters limiters) {
		return new GcraRateLimiter(limiters.build(Algorithm.GCRA));
	}

	@Bean
	@ConditionalOnMissingBean
	Limiters rateLimitLimiterParts(RedisScriptRunner runner, CircuitBreaker circuitBreaker,
			ObjectProvider<LocalDenialCache> denialCache, ObjectProvider<LocalRateLimiter> fallback,
			RateLimitProperties properties) {
		String prefix = PropertyErrors.check("ratelimit.key-prefix", properties.getKeyPrefix(), RedisKeys::checkPrefix);
		boolean local = properties.getFailureMode() == FailureMode.LOCAL;
		return new Limiters(runner, prefix, circuitBreaker, denialCache.getIfAvailable(),
				local ? fallback.getIfAvailable() : null);
	}

	@Bean
	@ConditionalOnMissingBean(RateLimitOverrides.class)
	@ConditionalOnBooleanProperty(name = "ratelimit.overrides.enabled", matchIfMissing = true)
	RedisRateLimitOverrides rateLimitOverrides(Limiters limiters, RateLimitProperties properties) {
		return PropertyErrors.check("ratelimit.overrides.refresh-interval",
				properties.getOverrides().getRefreshInterval(),
				(interval) -> new RedisRateLimitOverrides(limiters.runner(), limiters.keyPrefix(), interval));
	}

	/**
	 * The parts every limiter of the starter shares.
	 */
	record Limiters(RedisScriptRunner runner, String keyPrefix, CircuitBreaker circuitBreaker,
			@Nullable LocalDenialCache denialCache, @Nullable LocalRateLimiter fallback) {

		/**
		 * Builds the limiter of a bean that applications call directly: in the {@code local} failure mode it
		 * decides in memory while Redis cannot.
		 */
		RedisRateLimiter build(Algorithm algorithm) {
			return builder(algorithm).fallback(this.fallback).build();
		}

		/**
		 * Builds the limiter that decides rules: without a fallback, since the
		 * engine (its enforcer) applies every failure mode itself, with the same
		 * in-memory limiter and keys.
		 */
		RedisRateLimiter forRules(Algorithm algorithm) {
			return builder(algorithm).build();
		}

		private RedisRateLimiter.Builder builder(Algorithm algorithm) {
			return RedisRateLimiter.builder(algorithm, this.runner)
				.keyPrefix(this.keyPrefix)
				.circuitBreaker(this.circuitBreaker)
				.denialCache(this.denialCache);
		}

	}

	/**
	 * With Lettuce, decisions never wait on Redis longer than {@code ratelimit.timeout}, and with
	 * {@code ratelimit.batching.enabled} those of a busy application travel together.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.lettuce.core.RedisClient")
	static class LettuceRunnerConfiguration {

		@Bean
		@ConditionalOnMissingBean(RedisScriptRunner.class)
		@ConditionalOnSingleCandidate(LettuceConnectionFactory.class)
		LettuceScriptRunner rateLimitLettuceScriptRunner(LettuceConnectionFactory connectionFactory,
				RateLimitProperties properties) {
			return PropertyErrors.check("ratelimit.timeout", properties.getTimeout(),
					(timeout) -> new LettuceScriptRunner(connectionFactory, timeout,
							properties.getBatching().isEnabled()));
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnSingleCandidate(LettuceConnectionFactory.class)
		RedisAtStartReport rateLimitRedisAtStartReport(ObjectProvider<LettuceScriptRunner> runner,
				LettuceConnectionFactory connectionFactory, RateLimitProperties properties) {
			return new RedisAtStartReport(runner, connectionFactory, properties.getFailureMode());
		}

	}

}

package dev.ratelimit.autoconfigure;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.FailureMode;
import dev.ratelimit.LocalDenialCache;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisRateLimiterSettings;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.redis.SlidingWindowCounterRateLimiter;
import dev.ratelimit.redis.SlidingWindowRateLimiter;
import dev.ratelimit.redis.TokenBucketRateLimiter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Registers a Redis rate limiter bean per algorithm when a {@link RedisConnectionFactory} is present,
 * all sharing one script runner bounded by {@code ratelimit.timeout}, one circuit breaker, and, in the
 * {@code local} failure mode, one in-memory fallback.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(RedisConnectionFactory.class)
@EnableConfigurationProperties(RateLimitProperties.class)
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
	RedisRateLimiterSettings rateLimiterSettings(RedisScriptRunner runner, CircuitBreaker circuitBreaker,
			ObjectProvider<LocalDenialCache> denialCache, RateLimitProperties properties) {
		LocalRateLimiter fallback = (properties.getFailureMode() != FailureMode.LOCAL) ? null
				: PropertyErrors.check("ratelimit.local.max-keys", properties.getLocal().getMaxKeys(),
						LocalRateLimiter::new);
		LocalDenialCache denials = denialCache.getIfAvailable();
		return PropertyErrors.check("ratelimit.key-prefix", properties.getKeyPrefix(),
				(prefix) -> new RedisRateLimiterSettings(runner, prefix, null, circuitBreaker, fallback, denials));
	}

	@Bean
	@ConditionalOnMissingBean
	FixedWindowRateLimiter fixedWindowRateLimiter(RedisRateLimiterSettings settings) {
		return new FixedWindowRateLimiter(settings);
	}

	@Bean
	@ConditionalOnMissingBean
	SlidingWindowRateLimiter slidingWindowRateLimiter(RedisRateLimiterSettings settings) {
		return new SlidingWindowRateLimiter(settings);
	}

	@Bean
	@ConditionalOnMissingBean
	SlidingWindowCounterRateLimiter slidingWindowCounterRateLimiter(RedisRateLimiterSettings settings) {
		return new SlidingWindowCounterRateLimiter(settings);
	}

	@Bean
	@ConditionalOnMissingBean
	TokenBucketRateLimiter tokenBucketRateLimiter(RedisRateLimiterSettings settings) {
		return new TokenBucketRateLimiter(settings);
	}

	@Bean
	@ConditionalOnMissingBean
	GcraRateLimiter gcraRateLimiter(RedisRateLimiterSettings settings) {
		return new GcraRateLimiter(settings);
	}

	/**
	 * With Lettuce, decisions never wait on Redis longer than {@code ratelimit.timeout}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.lettuce.core.RedisClient")
	static class LettuceRunnerConfiguration {

		@Bean
		@ConditionalOnMissingBean(RedisScriptRunner.class)
		@ConditionalOnBean(LettuceConnectionFactory.class)
		LettuceScriptRunner rateLimitLettuceScriptRunner(LettuceConnectionFactory connectionFactory,
				RateLimitProperties properties) {
			return PropertyErrors.check("ratelimit.timeout", properties.getTimeout(),
					(timeout) -> new LettuceScriptRunner(connectionFactory, timeout));
		}

	}

}

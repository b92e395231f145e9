package dev.ratelimit.redis;

import java.time.Clock;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.LocalDenialCache;
import dev.ratelimit.RateLimiter;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * How a Redis rate limiter reaches Redis and what it does when it cannot.
 *
 * @param runner runs the scripts
 * @param keyPrefix the first segment of every key, {@code rate} by default
 * @param clock the time source, or {@code null} for the Redis server's {@code TIME}
 * @param circuitBreaker stops calls to a failing Redis for a while, or {@code null} for none
 * @param fallback decides while Redis cannot (the {@code local} failure mode), or {@code null} to throw
 * {@link dev.ratelimit.RateLimiterUnavailableException}
 * @param denialCache refuses keys Redis refused, without a call, until they could be granted; or
 * {@code null} for none
 */
public record RedisRateLimiterSettings(RedisScriptRunner runner, String keyPrefix, @Nullable Clock clock,
		@Nullable CircuitBreaker circuitBreaker, @Nullable RateLimiter fallback,
		@Nullable LocalDenialCache denialCache) {

	/**
	 * Checks the settings.
	 * @throws IllegalArgumentException when the runner is missing or the prefix is not plain characters
	 */
	public RedisRateLimiterSettings {
		if (runner == null) {
			throw new IllegalArgumentException("runner must not be null");
		}
		RedisKeys.checkPrefix(keyPrefix);
	}

	/**
	 * Returns settings that call through a template, with no circuit breaker and no fallback.
	 * @param redisTemplate the template
	 * @param keyPrefix the first segment of every key
	 * @param clock the time source, or {@code null} for the Redis server's {@code TIME}
	 * @return the settings
	 */
	public static RedisRateLimiterSettings of(StringRedisTemplate redisTemplate, String keyPrefix,
			@Nullable Clock clock) {
		return new RedisRateLimiterSettings(RedisScriptRunner.of(redisTemplate), keyPrefix, clock, null, null, null);
	}

}

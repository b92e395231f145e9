package dev.ratelimit.redis;

import java.time.Clock;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Sliding-window-counter rate limiter: the current fixed window's count plus the previous window's,
 * weighted by the share of it that still lies in the last window (Cloudflare's approximation). State
 * per key is one small hash, {@code <prefix>:sliding-counter:<id>}: O(1) memory whatever the limit.
 *
 * @since 0.1.0
 */
public final class SlidingWindowCounterRateLimiter extends AlgorithmRateLimiter {

	/**
	 * Creates a limiter with keys {@code rate:sliding-counter:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public SlidingWindowCounterRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, RedisRateLimiter.DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public SlidingWindowCounterRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiter.builder(Algorithm.SLIDING_WINDOW_COUNTER, redisTemplate).keyPrefix(keyPrefix).clock(clock).build());
	}

	/**
	 * Creates a limiter from one built with {@link RedisRateLimiter#builder} for this algorithm, with a
	 * runner, circuit breaker, fallback or denial cache of its own.
	 * @param limiter the limiter, built for {@link Algorithm#SLIDING_WINDOW_COUNTER}
	 */
	public SlidingWindowCounterRateLimiter(RedisRateLimiter limiter) {
		super(Algorithm.SLIDING_WINDOW_COUNTER, limiter);
	}

}

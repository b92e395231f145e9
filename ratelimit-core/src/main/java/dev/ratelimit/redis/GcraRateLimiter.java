package dev.ratelimit.redis;

import java.time.Clock;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * GCRA rate limiter (generic cell rate algorithm): one stored time per key,
 * {@code <prefix>:gcra:<id>}, the theoretical arrival time of the next permit; it behaves as a token
 * bucket of {@link dev.ratelimit.RateLimit#burst()} permits refilled with the limit evenly over the
 * window, with exact {@code retryAfter} and {@code resetAfter}.
 *
 * @since 0.1.0
 */
public final class GcraRateLimiter extends AlgorithmRateLimiter {

	/**
	 * Creates a limiter with keys {@code rate:gcra:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public GcraRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, RedisRateLimiter.DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public GcraRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiter.builder(Algorithm.GCRA, redisTemplate).keyPrefix(keyPrefix).clock(clock).build());
	}

	/**
	 * Creates a limiter from one built with {@link RedisRateLimiter#builder} for this algorithm, with a
	 * runner, circuit breaker, fallback or denial cache of its own.
	 * @param limiter the limiter, built for {@link Algorithm#GCRA}
	 */
	public GcraRateLimiter(RedisRateLimiter limiter) {
		super(Algorithm.GCRA, limiter);
	}

}

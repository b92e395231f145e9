package dev.ratelimit.redis;

import java.time.Clock;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Sliding-window-log rate limiter: every permit is recorded with its time in a sorted set,
 * {@code <prefix>:sliding:<id>}, and a call is granted while fewer than the limit lie within the last
 * window. Exact at every instant; memory per key grows with the limit.
 *
 * @since 0.1.0
 */
public final class SlidingWindowRateLimiter extends AlgorithmRateLimiter {

	/**
	 * Creates a limiter with keys {@code rate:sliding:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public SlidingWindowRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, RedisRateLimiter.DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public SlidingWindowRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiter.builder(Algorithm.SLIDING_WINDOW_LOG, redisTemplate).keyPrefix(keyPrefix).clock(clock).build());
	}

	/**
	 * Creates a limiter from one built with {@link RedisRateLimiter#builder} for this algorithm, with a
	 * runner, circuit breaker, fallback or denial cache of its own.
	 * @param limiter the limiter, built for {@link Algorithm#SLIDING_WINDOW_LOG}
	 */
	public SlidingWindowRateLimiter(RedisRateLimiter limiter) {
		super(Algorithm.SLIDING_WINDOW_LOG, limiter);
	}

	/**
	 * Takes one permit for {@code clientId}, at most {@code limit} in any window of {@code windowMs}.
	 * @param clientId whose budget is charged, any string
	 * @param limit permits per window, at least 1
	 * @param windowMs the window length in milliseconds, at least 1
	 * @return whether the request is allowed
	 * @throws IllegalArgumentException when an argument is out of range
	 */
	public boolean isAllowed(String clientId, int limit, int windowMs) {
		return seedDecision(clientId, limit, "windowMs", windowMs, ChronoUnit.MILLIS);
	}

}

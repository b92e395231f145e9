package dev.ratelimit.redis;

import java.time.Clock;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Fixed-window rate limiter: a key's window opens with its first permit and lasts the window length;
 * up to the limit is granted within it. State per key is one small hash,
 * {@code <prefix>:fixed:<id>}, that expires when its window ends.
 *
 * @since 0.1.0
 */
public final class FixedWindowRateLimiter extends AlgorithmRateLimiter {

	/**
	 * Creates a limiter with keys {@code rate:fixed:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public FixedWindowRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, RedisRateLimiter.DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public FixedWindowRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, redisTemplate).keyPrefix(keyPrefix).clock(clock).build());
	}

	/**
	 * Creates a limiter from one built with {@link RedisRateLimiter#builder} for this algorithm, with a
	 * runner, circuit breaker, fallback or denial cache of its own.
	 * @param limiter the limiter, built for {@link Algorithm#FIXED_WINDOW}
	 */
	public FixedWindowRateLimiter(RedisRateLimiter limiter) {
		super(Algorithm.FIXED_WINDOW, limiter);
	}

	/**
	 * Takes one permit for {@code clientId}, at most {@code limit} per window of {@code windowSeconds}.
	 * @param clientId whose budget is charged, any string
	 * @param limit permits per window, at least 1
	 * @param windowSeconds the window length in seconds, at least 1
	 * @return whether the request is allowed
	 * @throws IllegalArgumentException when an argument is out of range
	 */
	public boolean isAllowed(String clientId, int limit, int windowSeconds) {
		return seedDecision(clientId, limit, "windowSeconds", windowSeconds, ChronoUnit.SECONDS);
	}

}

package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sliding-window-log rate limiter: every permit is recorded with its time in a sorted set,
 * {@code <prefix>:sliding:<id>}, and a call is granted while fewer than the limit lie within the last
 * window. Exact at every instant; memory per key grows with the limit.
 */
public class SlidingWindowRateLimiter extends AbstractRedisRateLimiter {

	private static final RedisScript<List> SCRIPT = loadScript("sliding-window-log");

	/**
	 * Creates a limiter with keys {@code rate:sliding:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public SlidingWindowRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public SlidingWindowRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiterSettings.of(redisTemplate, keyPrefix, clock));
	}

	/**
	 * Creates a limiter with settings of its own: a runner with a timeout, a circuit breaker, a fallback.
	 * @param settings how to reach Redis and what to do when it cannot decide
	 */
	public SlidingWindowRateLimiter(RedisRateLimiterSettings settings) {
		super(SCRIPT, settings);
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
		if (windowMs < 1) {
			throw new IllegalArgumentException("windowMs must be at least 1, but was " + windowMs);
		}
		return tryAcquire(requireClientId(clientId), RateLimit.of(limit, Duration.ofMillis(windowMs))).allowed();
	}

	@Override
	protected String keyKind() {
		return "sliding";
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.SLIDING_WINDOW_LOG;
	}

}

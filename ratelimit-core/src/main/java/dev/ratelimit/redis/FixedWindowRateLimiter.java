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
 * Fixed-window rate limiter: a key's window opens with its first permit and lasts the window length;
 * up to the limit is granted within it. State per key is one small hash,
 * {@code <prefix>:fixed:<id>}, that expires when its window ends.
 */
public class FixedWindowRateLimiter extends AbstractRedisRateLimiter {

	private static final RedisScript<List> SCRIPT = loadScript("fixed-window");

	/**
	 * Creates a limiter with keys {@code rate:fixed:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public FixedWindowRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public FixedWindowRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiterSettings.of(redisTemplate, keyPrefix, clock));
	}

	/**
	 * Creates a limiter with settings of its own: a runner with a timeout, a circuit breaker, a fallback.
	 * @param settings how to reach Redis and what to do when it cannot decide
	 */
	public FixedWindowRateLimiter(RedisRateLimiterSettings settings) {
		super(SCRIPT, settings);
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
		if (windowSeconds < 1) {
			throw new IllegalArgumentException("windowSeconds must be at least 1, but was " + windowSeconds);
		}
		return tryAcquire(requireClientId(clientId), RateLimit.of(limit, Duration.ofSeconds(windowSeconds))).allowed();
	}

	@Override
	protected String keyKind() {
		return "fixed";
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.FIXED_WINDOW;
	}

}

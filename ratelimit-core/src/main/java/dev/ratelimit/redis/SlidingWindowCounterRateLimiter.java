package dev.ratelimit.redis;

import java.time.Clock;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sliding-window-counter rate limiter: the current fixed window's count plus the previous window's,
 * weighted by the share of it that still lies in the last window (Cloudflare's approximation). State
 * per key is one small hash, {@code <prefix>:sliding-counter:<id>}: O(1) memory whatever the limit.
 */
public class SlidingWindowCounterRateLimiter extends AbstractRedisRateLimiter {

	private static final RedisScript<List> SCRIPT = loadScript("sliding-window-counter");

	/**
	 * Creates a limiter with keys {@code rate:sliding-counter:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public SlidingWindowCounterRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public SlidingWindowCounterRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiterSettings.of(redisTemplate, keyPrefix, clock));
	}

	/**
	 * Creates a limiter with settings of its own: a runner with a timeout, a circuit breaker, a fallback.
	 * @param settings how to reach Redis and what to do when it cannot decide
	 */
	public SlidingWindowCounterRateLimiter(RedisRateLimiterSettings settings) {
		super(SCRIPT, settings);
	}

	@Override
	protected String keyKind() {
		return "sliding-counter";
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.SLIDING_WINDOW_COUNTER;
	}

}

package dev.ratelimit.redis;

import java.time.Clock;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * GCRA rate limiter (generic cell rate algorithm): one stored time per key,
 * {@code <prefix>:gcra:<id>}, the theoretical arrival time of the next permit; it behaves as a token
 * bucket of {@link dev.ratelimit.RateLimit#burst()} permits refilled with the limit evenly over the
 * window, with exact {@code retryAfter} and {@code resetAfter}.
 */
public class GcraRateLimiter extends AbstractRedisRateLimiter {

	private static final RedisScript<List> SCRIPT = loadScript("gcra");

	/**
	 * Creates a limiter with keys {@code rate:gcra:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public GcraRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public GcraRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiterSettings.of(redisTemplate, keyPrefix, clock));
	}

	/**
	 * Creates a limiter with settings of its own: a runner with a timeout, a circuit breaker, a fallback.
	 * @param settings how to reach Redis and what to do when it cannot decide
	 */
	public GcraRateLimiter(RedisRateLimiterSettings settings) {
		super(SCRIPT, settings);
	}

	@Override
	protected String keyKind() {
		return "gcra";
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.GCRA;
	}

}

package dev.ratelimit.redis;

import java.time.Clock;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Token-bucket rate limiter: a bucket of {@link dev.ratelimit.RateLimit#burst()} tokens (the limit by
 * default) refilled with the limit evenly over the window, one token per permit. State per key is one
 * small hash, {@code <prefix>:token-bucket:<id>}, that expires when the bucket is full again.
 */
public class TokenBucketRateLimiter extends AbstractRedisRateLimiter {

	private static final RedisScript<List> SCRIPT = loadScript("token-bucket");

	/**
	 * Creates a limiter with keys {@code rate:token-bucket:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public TokenBucketRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public TokenBucketRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiterSettings.of(redisTemplate, keyPrefix, clock));
	}

	/**
	 * Creates a limiter with settings of its own: a runner with a timeout, a circuit breaker, a fallback.
	 * @param settings how to reach Redis and what to do when it cannot decide
	 */
	public TokenBucketRateLimiter(RedisRateLimiterSettings settings) {
		super(SCRIPT, settings);
	}

	@Override
	protected String keyKind() {
		return "token-bucket";
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.TOKEN_BUCKET;
	}

}

package dev.ratelimit.redis;

import java.time.Clock;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Token-bucket rate limiter: a bucket of {@link dev.ratelimit.RateLimit#burst()} tokens (the limit by
 * default) refilled with the limit evenly over the window, one token per permit. State per key is one
 * small hash, {@code <prefix>:token-bucket:<id>}, that expires when the bucket is full again.
 *
 * @since 0.1.0
 */
public final class TokenBucketRateLimiter extends AlgorithmRateLimiter {

	/**
	 * Creates a limiter with keys {@code rate:token-bucket:<id>} and the Redis server's time.
	 * @param redisTemplate the template to run the script with
	 */
	public TokenBucketRateLimiter(StringRedisTemplate redisTemplate) {
		this(redisTemplate, RedisRateLimiter.DEFAULT_KEY_PREFIX, null);
	}

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run the script with
	 * @param keyPrefix the first segment of every key, {@code rate} by default
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	public TokenBucketRateLimiter(StringRedisTemplate redisTemplate, String keyPrefix, @Nullable Clock clock) {
		this(RedisRateLimiter.builder(Algorithm.TOKEN_BUCKET, redisTemplate).keyPrefix(keyPrefix).clock(clock).build());
	}

	/**
	 * Creates a limiter from one built with {@link RedisRateLimiter#builder} for this algorithm, with a
	 * runner, circuit breaker, fallback or denial cache of its own.
	 * @param limiter the limiter, built for {@link Algorithm#TOKEN_BUCKET}
	 */
	public TokenBucketRateLimiter(RedisRateLimiter limiter) {
		super(Algorithm.TOKEN_BUCKET, limiter);
	}

}

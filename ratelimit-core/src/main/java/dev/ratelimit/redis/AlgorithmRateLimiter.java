package dev.ratelimit.redis;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.RateLimiter;

import org.springframework.util.Assert;

/**
 * A {@link RedisRateLimiter} of one algorithm under a type of its own, so that applications can
 * inject each algorithm's limiter by type. Holds no logic: every call goes to the limiter it wraps.
 *
 * @since 0.1.0
 */
public abstract sealed class AlgorithmRateLimiter implements RateLimiter permits FixedWindowRateLimiter,
		SlidingWindowRateLimiter, SlidingWindowCounterRateLimiter, TokenBucketRateLimiter, GcraRateLimiter {

	private final RedisRateLimiter limiter;

	AlgorithmRateLimiter(Algorithm algorithm, RedisRateLimiter limiter) {
		Assert.notNull(limiter, "limiter must not be null");
		Assert.isTrue(limiter.algorithm() == algorithm, () -> "limiter must be built for " + algorithm.id()
				+ ", but was built for " + limiter.algorithm().id());
		this.limiter = limiter;
	}

	@Override
	public final List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits) {
		return this.limiter.tryAcquire(key, limits, permits);
	}

	@Override
	public final CompletableFuture<List<RateLimitDecision>> tryAcquireAsync(String key, List<RateLimit> limits,
			long permits) {
		return this.limiter.tryAcquireAsync(key, limits, permits);
	}

	@Override
	public final List<RateLimitDecision> inspect(String key, List<RateLimit> limits) {
		return this.limiter.inspect(key, limits);
	}

	@Override
	public final CompletableFuture<List<RateLimitDecision>> inspectAsync(String key, List<RateLimit> limits) {
		return this.limiter.inspectAsync(key, limits);
	}

	@Override
	public final List<RateLimitDecision> check(String key, List<RateLimit> limits, long permits) {
		return this.limiter.check(key, limits, permits);
	}

	@Override
	public final CompletableFuture<List<RateLimitDecision>> checkAsync(String key, List<RateLimit> limits,
			long permits) {
		return this.limiter.checkAsync(key, limits, permits);
	}

	@Override
	public final void refund(String key, List<RateLimit> limits, long permits) {
		this.limiter.refund(key, limits, permits);
	}

	@Override
	public final CompletableFuture<Void> refundAsync(String key, List<RateLimit> limits, long permits) {
		return this.limiter.refundAsync(key, limits, permits);
	}

	@Override
	public final void charge(String key, List<RateLimit> limits, long permits) {
		this.limiter.charge(key, limits, permits);
	}

	@Override
	public final CompletableFuture<Void> chargeAsync(String key, List<RateLimit> limits, long permits) {
		return this.limiter.chargeAsync(key, limits, permits);
	}

	@Override
	public final RateLimitSlot tryAcquireSlot(String key, long limit, Duration lease) {
		return this.limiter.tryAcquireSlot(key, limit, lease);
	}

	@Override
	public final CompletableFuture<RateLimitSlot> tryAcquireSlotAsync(String key, long limit, Duration lease) {
		return this.limiter.tryAcquireSlotAsync(key, limit, lease);
	}

	@Override
	public final BlockingRateLimiter blocking(BlockPolicy policy) {
		return this.limiter.blocking(policy);
	}

	@Override
	public final long reset(String key, List<RateLimit> limits) {
		return this.limiter.reset(key, limits);
	}

	@Override
	public final Algorithm algorithm() {
		return this.limiter.algorithm();
	}

	/**
	 * Takes one permit for a client of the seed's {@code isAllowed} methods.
	 * @param clientId whose budget is charged
	 * @param limit permits per window
	 * @param windowArgument the window argument's name, for errors
	 * @param window the window length in {@code unit}, at least 1
	 * @param unit the unit of the window
	 * @return whether the permit was granted
	 */
	final boolean seedDecision(String clientId, int limit, String windowArgument, int window, ChronoUnit unit) {
		Assert.notNull(clientId, "clientId must not be null");
		if (window < 1) {
			throw new IllegalArgumentException(windowArgument + " must be at least 1, but was " + window);
		}
		return tryAcquire(clientId, RateLimit.of(limit, Duration.of(window, unit))).allowed();
	}

	/**
	 * Returns the Redis key that holds the state of {@code id} under a single limit.
	 * @param id the caller's key
	 * @return the Redis key
	 * @see RedisRateLimiter#redisKey(String)
	 */
	public final String redisKey(String id) {
		return this.limiter.redisKey(id);
	}

}

package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.InvalidRateLimitException;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitSlot;

/**
 * The {@link BlockingRateLimiter} of a {@link RedisRateLimiter}: every call goes to a Redis limiter built
 * with the block policy, whose scripts read and write the key's block in the same call.
 */
final class RedisBlockingRateLimiter implements BlockingRateLimiter {

	private final RedisRateLimiter limiter;

	private final BlockPolicy policy;

	RedisBlockingRateLimiter(RedisRateLimiter limiter, BlockPolicy policy) {
		this.limiter = limiter;
		this.policy = policy;
	}

	@Override
	public List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits) {
		return this.limiter.tryAcquire(key, limits, permits);
	}

	@Override
	public CompletableFuture<List<RateLimitDecision>> tryAcquireAsync(String key, List<RateLimit> limits,
			long permits) {
		return this.limiter.tryAcquireAsync(key, limits, permits);
	}

	@Override
	public List<RateLimitDecision> check(String key, List<RateLimit> limits, long permits) {
		return this.limiter.check(key, limits, permits);
	}

	@Override
	public CompletableFuture<List<RateLimitDecision>> checkAsync(String key, List<RateLimit> limits, long permits) {
		return this.limiter.checkAsync(key, limits, permits);
	}

	/** Takes a slot of work in flight as the limiter it blocks for does: slots are never blocked. */
	@Override
	public RateLimitSlot tryAcquireSlot(String key, long limit, Duration lease) {
		return this.limiter.tryAcquireSlot(key, limit, lease);
	}

	@Override
	public CompletableFuture<RateLimitSlot> tryAcquireSlotAsync(String key, long limit, Duration lease) {
		return this.limiter.tryAcquireSlotAsync(key, limit, lease);
	}

	/**
	 * Returns the state of {@code key} under {@code limits}, a block included, without taking anything
	 * or starting a block.
	 */
	@Override
	public List<RateLimitDecision> inspect(String key, List<RateLimit> limits) {
		return this.limiter.inspect(key, limits);
	}

	@Override
	public CompletableFuture<List<RateLimitDecision>> inspectAsync(String key, List<RateLimit> limits) {
		return this.limiter.inspectAsync(key, limits);
	}

	/**
	 * Gives back permits a granted call took; a block the key is under stays (see {@link #unblock}).
	 */
	@Override
	public void charge(String key, List<RateLimit> limits, long permits) {
		this.limiter.charge(key, limits, permits);
	}

	@Override
	public CompletableFuture<Void> chargeAsync(String key, List<RateLimit> limits, long permits) {
		return this.limiter.chargeAsync(key, limits, permits);
	}

	@Override
	public void refund(String key, List<RateLimit> limits, long permits) {
		this.limiter.refund(key, limits, permits);
	}

	@Override
	public CompletableFuture<Void> refundAsync(String key, List<RateLimit> limits, long permits) {
		return this.limiter.refundAsync(key, limits, permits);
	}

	/**
	 * Deletes the state of {@code key} under {@code limits}; its block stays (see {@link #unblock}).
	 */
	@Override
	public long reset(String key, List<RateLimit> limits) {
		return this.limiter.reset(key, limits);
	}

	@Override
	public BlockingRateLimiter blocking(BlockPolicy other) {
		return this.limiter.blocking(other);
	}

	@Override
	public Algorithm algorithm() {
		return this.limiter.algorithm();
	}

	@Override
	public BlockPolicy blockPolicy() {
		return this.policy;
	}

	@Override
	public Duration blockedFor(String key) {
		return this.limiter.blockState(key, null);
	}

	@Override
	public void block(String key, Duration duration) {
		if (duration == null || duration.compareTo(RateLimit.MIN_WINDOW) < 0
				|| duration.compareTo(RateLimit.MAX_WINDOW) > 0) {
			throw new InvalidRateLimitException("duration", -1, "must be from 1ms to 36500d, but was " + duration);
		}
		this.limiter.blockState(key, duration);
	}

	@Override
	public boolean unblock(String key) {
		return this.limiter.unblock(key);
	}

	@Override
	public String toString() {
		return "blocking " + this.limiter.algorithm().id() + " limiter (" + this.policy + ")";
	}

}

package dev.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Decides whether a caller identified by a key may take permits under a {@link RateLimit}.
 */
public interface RateLimiter {

	/**
	 * Tries to take one permit for {@code key} under {@code limit}.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @return the decision, with the figures for rate-limit headers
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	default RateLimitDecision tryAcquire(String key, RateLimit limit) {
		return tryAcquire(key, limit, 1);
	}

	/**
	 * Tries to take {@code permits} for {@code key} under {@code limit}, all or none.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @param permits how many permits to take, from 1 to the limit
	 * @return the decision, with the figures for rate-limit headers
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	default RateLimitDecision tryAcquire(String key, RateLimit limit, long permits) {
		if (limit == null) {
			throw new IllegalArgumentException("limit must not be null");
		}
		return tryAcquire(key, List.of(limit), permits).get(0);
	}

	/**
	 * Tries to take {@code permits} for {@code key} under every one of {@code limits} at once, all or
	 * nothing: when any limit refuses, no limit is charged.
	 * @param key whose budget is charged, any string
	 * @param limits the limits to enforce, with distinct windows
	 * @param permits how many permits to take, from 1 to the smallest limit (or burst)
	 * @return one decision per limit, in order; the call was granted only if every decision allows it,
	 * and the time until it could be granted is the longest {@code retryAfter}
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits);

	/**
	 * Tries to take one permit for {@code key} under {@code limit} without making the caller wait for
	 * Redis.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @return the decision
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @see #tryAcquireAsync(String, List, long)
	 */
	default CompletableFuture<RateLimitDecision> tryAcquireAsync(String key, RateLimit limit) {
		return tryAcquireAsync(key, limit, 1);
	}

	/**
	 * Tries to take {@code permits} for {@code key} under {@code limit}, all or none, without making the
	 * caller wait for Redis.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @param permits how many permits to take, from 1 to the limit
	 * @return the decision
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @see #tryAcquireAsync(String, List, long)
	 */
	default CompletableFuture<RateLimitDecision> tryAcquireAsync(String key, RateLimit limit, long permits) {
		if (limit == null) {
			throw new IllegalArgumentException("limit must not be null");
		}
		return tryAcquireAsync(key, List.of(limit), permits).thenApply((decisions) -> decisions.get(0));
	}

	/**
	 * Tries to take {@code permits} for {@code key} under every one of {@code limits}, all or nothing, as
	 * {@link #tryAcquire(String, List, long)} does, without making the caller wait: for reactive and
	 * other non-blocking callers. The Redis limiters hold no thread while Redis answers; this default
	 * decides in the calling thread, which suits limiters that make no remote call.
	 * @param key whose budget is charged, any string
	 * @param limits the limits to enforce, with distinct windows
	 * @param permits how many permits to take
	 * @return one decision per limit, in order; completed exceptionally with
	 * {@link RateLimiterUnavailableException} when no decision could be reached
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	default CompletableFuture<List<RateLimitDecision>> tryAcquireAsync(String key, List<RateLimit> limits,
			long permits) {
		List<RateLimitDecision> decisions;
		try {
			decisions = tryAcquire(key, limits, permits);
		}
		catch (IllegalArgumentException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return CompletableFuture.completedFuture(decisions);
	}

	/**
	 * Takes {@code permits} for {@code key} under {@code limit}, waiting for them when they cannot be
	 * taken now, up to {@code maxWait}: for throttling calls out to a partner that allows so many per
	 * second across every instance. After a refusal it waits for the {@code retryAfter} it was told
	 * (no polling) and tries again; when that wait would end past {@code maxWait} it returns the refusal
	 * at once. An interrupted wait returns the last refusal, with the thread's interrupt flag set.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @param permits how many permits to take, from 1 to the limit
	 * @param maxWait the longest this call may wait, zero or positive
	 * @return the granted decision, or the refusal when the permits could not be taken within
	 * {@code maxWait}
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws RateLimiterUnavailableException when no decision could be reached
	 */
	default RateLimitDecision acquire(String key, RateLimit limit, long permits, Duration maxWait) {
		if (maxWait == null || maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must be zero or positive, but was " + maxWait);
		}
		long deadline = System.nanoTime() + Durations.saturatedNanos(maxWait);
		while (true) {
			RateLimitDecision decision = tryAcquire(key, limit, permits);
			if (decision.allowed()) {
				return decision;
			}
			// at least a tenth of a millisecond, so that a refusal due at once cannot turn into a busy loop
			long wait = Math.max(Durations.saturatedNanos(decision.retryAfter()), 100_000);
			if (deadline - System.nanoTime() - wait < 0) {
				return decision;
			}
			try {
				TimeUnit.NANOSECONDS.sleep(wait);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return decision;
			}
		}
	}

	/**
	 * Returns the state of {@code key} under {@code limits} without taking anything: the permits
	 * remaining now, and whether (else when) a call for one would be granted.
	 * @param key whose state to read
	 * @param limits the limits
	 * @return one decision per limit
	 * @throws UnsupportedOperationException when the limiter cannot read its state
	 */
	default List<RateLimitDecision> inspect(String key, List<RateLimit> limits) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot read a key's state");
	}

	/**
	 * Puts {@code key} back to full under {@code limits}, for example for support staff unblocking a
	 * customer.
	 * @param key whose state to delete
	 * @param limits the limits
	 * @return how many stored entries were deleted
	 * @throws UnsupportedOperationException when the limiter cannot reset a key
	 */
	default long reset(String key, List<RateLimit> limits) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot reset a key");
	}

	/**
	 * Returns the algorithm this limiter implements.
	 * @return the algorithm
	 */
	Algorithm algorithm();

}

package dev.ratelimit;

import java.util.List;

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

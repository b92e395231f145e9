package dev.ratelimit;

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
	RateLimitDecision tryAcquire(String key, RateLimit limit, long permits);

	/**
	 * Returns the algorithm this limiter implements.
	 * @return the algorithm
	 */
	Algorithm algorithm();

}

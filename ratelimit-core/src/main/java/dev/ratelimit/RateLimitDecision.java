package dev.ratelimit;

import java.time.Duration;

/**
 * The outcome of one {@link RateLimiter#tryAcquire} call, with the figures a client needs.
 *
 * @param allowed whether the permits were granted
 * @param limit the limit that was applied
 * @param remaining how many permits could be taken right after this call (for the token bucket and GCRA
 * up to the burst)
 * @param retryAfter how long until a rejected call could succeed; zero when allowed
 * @param resetAfter how long until the key is back to its full limit
 * @since 0.1.0
 */
public record RateLimitDecision(boolean allowed, long limit, long remaining, Duration retryAfter,
		Duration resetAfter) {

	/**
	 * Creates a decision, checking that its figures are consistent.
	 * @throws IllegalArgumentException when a figure is negative or a rejection has no positive
	 * {@code retryAfter}
	 */
	public RateLimitDecision {
		if (remaining < 0) {
			throw new IllegalArgumentException("remaining must not be negative, but was " + remaining);
		}
		if (retryAfter == null || retryAfter.isNegative() || (allowed != retryAfter.isZero())) {
			throw new IllegalArgumentException(
					"retryAfter must be zero when allowed and positive when rejected, but was " + retryAfter);
		}
		if (resetAfter == null || resetAfter.isNegative()) {
			throw new IllegalArgumentException("resetAfter must not be negative, but was " + resetAfter);
		}
	}

	/**
	 * Returns {@link #retryAfter()} in whole seconds, rounded up, as {@code Retry-After} gives it.
	 * @return the seconds, zero when allowed
	 */
	public long retryAfterSeconds() {
		return Durations.secondsRoundedUp(this.retryAfter);
	}

	/**
	 * Returns {@link #resetAfter()} in whole seconds, rounded up, as the {@code t} of rate-limit headers.
	 * @return the seconds
	 */
	public long resetAfterSeconds() {
		return Durations.secondsRoundedUp(this.resetAfter);
	}

	/**
	 * Returns a decision that granted the permits.
	 * @param limit the limit that was applied
	 * @param remaining permits left
	 * @param resetAfter time until the key is back to full
	 * @return the decision
	 */
	public static RateLimitDecision allowed(long limit, long remaining, Duration resetAfter) {
		return new RateLimitDecision(true, limit, remaining, Duration.ZERO, resetAfter);
	}

	/**
	 * Returns a decision that refused the permits.
	 * @param limit the limit that was applied
	 * @param remaining permits left
	 * @param retryAfter time until the call could succeed, positive
	 * @param resetAfter time until the key is back to full
	 * @return the decision
	 */
	public static RateLimitDecision rejected(long limit, long remaining, Duration retryAfter, Duration resetAfter) {
		return new RateLimitDecision(false, limit, remaining, retryAfter, resetAfter);
	}

}

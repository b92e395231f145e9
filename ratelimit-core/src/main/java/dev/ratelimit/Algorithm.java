package dev.ratelimit;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The rate-limiting algorithms on offer.
 *
 * @since 0.1.0
 */
public enum Algorithm {

	/**
	 * Counts permits in a window that opens with a key's first request and lasts the window length.
	 * O(1) memory per key; up to twice the limit can pass around a window boundary.
	 */
	FIXED_WINDOW,

	/**
	 * Records every permit with its time and counts those within the last window. Exact; memory grows
	 * with the limit.
	 */
	SLIDING_WINDOW_LOG,

	/**
	 * Weighs the current fixed window's count plus the previous window's, scaled by how much of it still
	 * lies in the last window. O(1) memory per key; approximate: up to the limit plus the previous
	 * window's count times the share of the current window that has run.
	 */
	SLIDING_WINDOW_COUNTER,

	/**
	 * A bucket of {@code burst} tokens refilled with {@code limit} tokens evenly over the window. O(1)
	 * memory per key; smooth, with bursts up to the capacity.
	 */
	TOKEN_BUCKET,

	/**
	 * The generic cell rate algorithm: one stored time per key, the same behaviour as the token bucket.
	 * O(1) memory per key, the least of all.
	 */
	GCRA;

	/**
	 * The largest limit (and so the most permits one call takes) of the sliding window log, which stores an
	 * entry per permit: one call writes at most this many, in a few tens of milliseconds of Redis's time, and a
	 * key holds at most this many (about 1 MB). Above it, the sliding window counter counts in O(1).
	 * @since 0.1.0
	 */
	public static final long MAX_SLIDING_WINDOW_LOG_LIMIT = 10_000;

	/**
	 * Returns whether the algorithm takes a burst other than its limit.
	 * @return {@code true} for the token bucket and GCRA
	 */
	public boolean acceptsBurst() {
		return this == TOKEN_BUCKET || this == GCRA;
	}

	/**
	 * Returns the algorithm's name as properties and messages write it, such as
	 * {@code sliding-window-log}.
	 * @return the name
	 */
	public String id() {
		return Names.kebab(this);
	}

	/**
	 * Checks that a call of {@code permits} under {@code limits} is one this algorithm can decide: at
	 * least one limit, no nulls, distinct windows, a burst only where the algorithm takes one, figures
	 * its scripts compute exactly, and from 1 permit to the smallest limit (or burst).
	 * @param limits the limits
	 * @param permits the permits of one call
	 * @throws InvalidRateLimitException naming the argument at fault
	 */
	public void check(List<RateLimit> limits, long permits) {
		if (limits == null || limits.isEmpty()) {
			throw new InvalidRateLimitException("limits", -1, "must hold at least one limit");
		}
		if (permits > RateLimiter.MAX_COST) {
			RateLimiter.checkCost("permits", permits, 1);
		}
		Set<Duration> windows = new HashSet<>();
		for (int i = 0; i < limits.size(); i++) {
			RateLimit limit = limits.get(i);
			if (limit == null) {
				throw new InvalidRateLimitException("limit", i, "must not be null");
			}
			if (limit.burst() != limit.limit() && !acceptsBurst()) {
				throw new InvalidRateLimitException("burst", i, "applies to the token bucket and GCRA only; " + id()
						+ " takes a limit whose burst is its limit, but burst was " + limit.burst());
			}
			if (!windows.add(limit.window())) {
				throw new InvalidRateLimitException("limits", i, "must have distinct windows: each limit needs a window "
						+ "of its own, but " + limit.windowLabel() + " appears twice");
			}
			if (this == SLIDING_WINDOW_LOG && limit.limit() > MAX_SLIDING_WINDOW_LOG_LIMIT) {
				throw new InvalidRateLimitException("limit", i, "must not exceed " + MAX_SLIDING_WINDOW_LOG_LIMIT
						+ " for the sliding window log, which stores an entry per permit (a call of n permits writes n "
						+ "entries, a key holds up to its limit), but was " + limit.limit() + " per "
						+ limit.windowLabel() + "; use the sliding-window-counter algorithm, which counts any limit in "
						+ "O(1), or a shorter window with a proportional limit");
			}
			if (exceedsExactRange(limit)) {
				throw new InvalidRateLimitException((limit.limit() >= limit.burst()) ? "limit" : "burst", i,
						"(or burst) × window in µs must stay below 2^53 for "
						+ "exact arithmetic (after dividing limit and window by their common factor, for the token "
						+ "bucket and GCRA), but " + Math.max(limit.limit(), limit.burst()) + " per " + limit.windowLabel()
						+ " exceeds it; use a rounder limit, a shorter window with a proportional limit, or the "
						+ "fixed window or the sliding log, which do not multiply them");
			}
			if (permits > limit.burst()) {
				throw new InvalidRateLimitException("permits", -1, "must not exceed the "
						+ (acceptsBurst() ? "burst" : "limit") + " of " + limit.burst() + ", but was " + permits);
			}
		}
		if (permits < 1) {
			throw new InvalidRateLimitException("permits", -1, "must be at least 1, but was " + permits);
		}
	}

	private boolean exceedsExactRange(RateLimit limit) {
		if (this != SLIDING_WINDOW_COUNTER && !acceptsBurst()) {
			return false;
		}
		long scale = rateScale(limit);
		long windowUnits = limit.windowMicros() / scale;
		return windowUnits > RateLimit.MAX_LIMIT / (limit.limit() / scale) || windowUnits > RateLimit.MAX_LIMIT / limit.burst();
	}

	/**
	 * Returns the factor the token bucket and GCRA divide a limit and its window by before their script
	 * counts in them: they depend on the rate only (limit per window), so a million a day counts as 5 per
	 * 432 ms, exactly, and stays within the 2^53 the scripts' doubles hold. The window stays at least a
	 * millisecond. The other algorithms count in the window itself: 1.
	 * @param limit the limit
	 * @return the common divisor of the limit and the window in µs, 1 when none or for other algorithms
	 */
	public long rateScale(RateLimit limit) {
		if (!acceptsBurst()) {
			return 1;
		}
		long window = limit.windowMicros();
		if (window <= RateLimit.MAX_LIMIT / limit.limit()) {
			// within range already: the scripts get what they always got
			return 1;
		}
		long a = limit.limit();
		long b = window / 1000;
		while (b != 0) {
			long t = a % b;
			a = b;
			b = t;
		}
		return a;
	}

}

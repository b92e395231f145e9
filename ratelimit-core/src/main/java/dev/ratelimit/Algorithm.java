package dev.ratelimit;

/**
 * The rate-limiting algorithms on offer.
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
	 * Returns whether the algorithm takes a burst other than its limit.
	 * @return {@code true} for the token bucket and GCRA
	 */
	public boolean acceptsBurst() {
		return this == TOKEN_BUCKET || this == GCRA;
	}

}

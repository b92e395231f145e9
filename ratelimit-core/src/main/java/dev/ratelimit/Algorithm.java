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
	SLIDING_WINDOW_LOG

}

package dev.ratelimit;

import java.time.Duration;

/**
 * A limit of {@code limit} permits per {@code window}.
 *
 * @param limit how many permits the window holds, from 1 to 2^53
 * @param window the length of the window, at least one millisecond
 */
public record RateLimit(long limit, Duration window) {

	/** The largest limit: Redis scripts count in doubles, exact up to 2^53. */
	public static final long MAX_LIMIT = 1L << 53;

	/** The shortest window a limiter accepts. */
	public static final Duration MIN_WINDOW = Duration.ofMillis(1);

	/**
	 * Creates a limit, checking its arguments.
	 * @throws IllegalArgumentException when {@code limit} is below 1 or {@code window} is null or shorter
	 * than one millisecond
	 */
	public RateLimit {
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
		}
		if (limit > MAX_LIMIT) {
			throw new IllegalArgumentException("limit must be at most 2^53 (" + MAX_LIMIT + "), but was " + limit);
		}
		if (window == null) {
			throw new IllegalArgumentException("window must not be null");
		}
		if (window.compareTo(MIN_WINDOW) < 0) {
			throw new IllegalArgumentException("window must be at least 1ms, but was " + window);
		}
	}

	/**
	 * Returns a limit of {@code limit} permits per {@code window}.
	 * @param limit how many permits the window holds, at least 1
	 * @param window the length of the window, at least one millisecond
	 * @return the limit
	 * @throws IllegalArgumentException when an argument is out of range
	 */
	public static RateLimit of(long limit, Duration window) {
		return new RateLimit(limit, window);
	}

}

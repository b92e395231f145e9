package dev.ratelimit;

import java.time.Duration;

/**
 * A limit of {@code limit} permits per {@code window}; for the token bucket and GCRA, {@code burst}
 * is how many may be taken at once (the bucket's capacity), {@code limit} by default.
 *
 * @param limit how many permits the window holds, from 1 to 2^53
 * @param window the length of the window, at least one millisecond
 * @param burst how many permits may be taken at once, from 1 to 2^53; only the token bucket and GCRA
 * accept a burst other than {@code limit}
 * @since 0.1.0
 */
public record RateLimit(long limit, Duration window, long burst) {

	/** The largest limit or burst: Redis scripts count in doubles, exact up to 2^53. */
	public static final long MAX_LIMIT = 1L << 53;

	/** The shortest window a limiter accepts. */
	public static final Duration MIN_WINDOW = Duration.ofMillis(1);

	/**
	 * The longest window a limiter accepts, 36,500 days: the scripts add it to the time in µs since the
	 * epoch, exact in doubles only below 2^53.
	 */
	public static final Duration MAX_WINDOW = Duration.ofDays(36_500);

	/**
	 * Creates a limit, checking its arguments.
	 * @throws IllegalArgumentException when an argument is out of range
	 */
	public RateLimit {
		checkRange("limit", limit);
		checkRange("burst", burst);
		if (window == null) {
			throw new InvalidRateLimitException("window", -1, "must not be null");
		}
		if (window.compareTo(MIN_WINDOW) < 0) {
			throw new InvalidRateLimitException("window", -1, "must be at least 1ms, but was " + label(window));
		}
		if (window.compareTo(MAX_WINDOW) > 0) {
			throw new InvalidRateLimitException("window", -1, "must be at most 36500d (about a century), but was "
					+ label(window) + "; for quotas that long, count in a coarser window");
		}
	}

	/**
	 * Creates a limit whose burst is the limit.
	 * @param limit how many permits the window holds, from 1 to 2^53
	 * @param window the length of the window, from one millisecond to 36,500 days
	 * @throws IllegalArgumentException when an argument is out of range
	 */
	public RateLimit(long limit, Duration window) {
		this(limit, window, limit);
	}

	/**
	 * Returns a limit of {@code limit} permits per {@code window}.
	 * @param limit how many permits the window holds, from 1 to 2^53
	 * @param window the length of the window, from one millisecond to 36,500 days
	 * @return the limit
	 * @throws IllegalArgumentException when an argument is out of range
	 */
	public static RateLimit of(long limit, Duration window) {
		return new RateLimit(limit, window);
	}

	/**
	 * Returns this limit with another burst, for the token bucket and GCRA.
	 * @param burst how many permits may be taken at once, from 1 to 2^53
	 * @return the limit
	 * @throws IllegalArgumentException when {@code burst} is out of range
	 */
	public RateLimit withBurst(long burst) {
		return new RateLimit(this.limit, this.window, burst);
	}

	/**
	 * Returns the window as a short label: {@code 1s}, {@code 5m}, {@code 1h}, {@code 1d},
	 * {@code 500ms}, or {@code 1500us} when not a whole number of milliseconds.
	 * @return the label
	 */
	public String windowLabel() {
		return label(this.window);
	}

	/**
	 * Returns a duration as a short label, as {@link #windowLabel()} does: {@code 0s}, {@code 1s},
	 * {@code 5m}, {@code 500ms}, {@code -1s}.
	 * @param duration the duration
	 * @return the label
	 */
	public static String label(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		if (Math.abs(duration.getSeconds()) > MAX_WINDOW.getSeconds() * 1000) {
			// far beyond any window: whole seconds, without the arithmetic that would overflow
			return duration.getSeconds() + "s";
		}
		long micros = duration.toNanos() / 1000;
		if (micros % 1000 != 0) {
			return micros + "us";
		}
		long millis = micros / 1000;
		long[] units = { 86_400_000, 3_600_000, 60_000, 1000 };
		String[] names = { "d", "h", "m", "s" };
		for (int i = 0; i < units.length; i++) {
			if (millis % units[i] == 0) {
				return (millis / units[i]) + names[i];
			}
		}
		return millis + "ms";
	}

	/**
	 * Returns the window in words, as a client's developer reads it after "100 per": {@code second},
	 * {@code minute}, {@code 10 seconds}, {@code 2 hours}, {@code 500ms}.
	 * @return the words
	 * @since 0.1.0
	 */
	public String windowInWords() {
		if (this.window.toMillis() % 1000 != 0) {
			return this.window.toMillis() + "ms";
		}
		long seconds = this.window.getSeconds();
		if (seconds % 3600 == 0) {
			return (seconds == 3600) ? "hour" : (seconds / 3600) + " hours";
		}
		if (seconds % 60 == 0) {
			return (seconds == 60) ? "minute" : (seconds / 60) + " minutes";
		}
		return (seconds == 1) ? "second" : seconds + " seconds";
	}

	/**
	 * Returns the window in whole seconds, rounded up, as the {@code w} of rate-limit headers.
	 * @return the seconds, at least 1
	 */
	public long windowSeconds() {
		return Durations.secondsRoundedUp(this.window);
	}

	/**
	 * Returns the window in microseconds, the unit of the Redis scripts.
	 * @return the microseconds
	 */
	public long windowMicros() {
		return Durations.micros(this.window);
	}

	private static void checkRange(String name, long value) {
		if (value < 1) {
			throw new InvalidRateLimitException(name, -1, "must be at least 1, but was " + value);
		}
		if (value > MAX_LIMIT) {
			throw new InvalidRateLimitException(name, -1, "must be at most 2^53 (" + MAX_LIMIT + "), but was " + value);
		}
	}

}

package dev.ratelimit;

import java.time.Duration;

/**
 * Converts durations and instants to the units of headers and scripts.
 */
final class Durations {

	private Durations() {
	}

	static long secondsRoundedUp(Duration duration) {
		long seconds = duration.getSeconds();
		return (duration.getNano() > 0) ? seconds + 1 : seconds;
	}

	static long micros(Duration duration) {
		return Math.addExact(Math.multiplyExact(duration.getSeconds(), 1_000_000L), duration.getNano() / 1000);
	}

	/** Nanoseconds, {@link Long#MAX_VALUE} for durations too long to count in them (292 years and more). */
	static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}

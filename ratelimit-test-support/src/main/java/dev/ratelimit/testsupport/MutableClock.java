package dev.ratelimit.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock a test moves by hand, so that no test sleeps to wait for a window.
 */
public final class MutableClock extends Clock {

	private volatile Instant now;

	/**
	 * Creates a clock that stands at {@code now} until moved.
	 * @param now the starting instant
	 */
	public MutableClock(Instant now) {
		this.now = now;
	}

	/**
	 * Returns a clock standing at an ISO-8601 instant.
	 * @param instant the instant, for example {@code 2026-01-01T00:00:00Z}
	 * @return the clock
	 */
	public static MutableClock at(String instant) {
		return new MutableClock(Instant.parse(instant));
	}

	/**
	 * Moves the clock forward.
	 * @param duration how far
	 */
	public void advance(Duration duration) {
		this.now = this.now.plus(duration);
	}

	@Override
	public Instant instant() {
		return this.now;
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		throw new UnsupportedOperationException();
	}

}

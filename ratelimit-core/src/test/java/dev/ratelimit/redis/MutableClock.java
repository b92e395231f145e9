package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock the test moves by hand, so that no test sleeps to wait for a window.
 */
final class MutableClock extends Clock {

	private volatile Instant now;

	MutableClock(Instant now) {
		this.now = now;
	}

	static MutableClock at(String instant) {
		return new MutableClock(Instant.parse(instant));
	}

	void advance(Duration duration) {
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

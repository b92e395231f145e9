package dev.ratelimit.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.time.ZoneOffset;

import org.springframework.util.Assert;

/**
 * The clock of a test's limiters under {@code @AutoConfigureRateLimit(clock = true)}: it stands still until the
 * test {@link #advance(Duration) advances} it, so that a window ends or a bucket refills at once, and no test sleeps
 * or depends on the machine's speed. Inject it into the test class.
 *
 * @since 0.1.0
 */
public final class RateLimitTestClock extends Clock {

	private volatile Instant now;

	/**
	 * Creates a clock that stands at {@code now} until advanced.
	 * @param now the starting instant
	 */
	public RateLimitTestClock(Instant now) {
		Assert.notNull(now, "now must not be null");
		this.now = now;
	}

	/**
	 * Moves the clock forward.
	 * @param duration how far, zero or more
	 */
	public void advance(Duration duration) {
		Assert.isTrue(!duration.isNegative(), () -> "duration must not be negative, got " + duration
				+ ": the limiters' state in Redis only moves forward in time");
		this.now = this.now.plus(duration);
	}

	/**
	 * Returns the instant the clock stands at.
	 * @return the instant
	 */
	@Override
	public Instant instant() {
		return this.now;
	}

	/**
	 * Returns UTC, the only zone of this clock.
	 * @return UTC
	 */
	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	/**
	 * Returns a clock in another zone that reads this one's instant, so that it moves when this one is advanced.
	 * @param zone the zone
	 * @return the clock in that zone
	 */
	@Override
	public Clock withZone(ZoneId zone) {
		if (ZoneOffset.UTC.equals(zone)) {
			return this;
		}
		InstantSource source = this::instant;
		return source.withZone(zone);
	}

	@Override
	public String toString() {
		return "RateLimitTestClock[" + this.now + "]";
	}

}

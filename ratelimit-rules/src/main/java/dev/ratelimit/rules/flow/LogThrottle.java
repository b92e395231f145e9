package dev.ratelimit.rules.flow;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a log line through at most once a minute and counts the ones held back meanwhile, so that a
 * flood of requests never becomes a flood of log lines.
 *
 * @since 0.1.0
 */
public final class LogThrottle {

	private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final AtomicLong next = new AtomicLong(System.nanoTime());

	private final AtomicLong suppressed = new AtomicLong();

	/**
	 * Creates a throttle that lets the first line through.
	 */
	public LogThrottle() {
	}

	/**
	 * Returns whether a line may be logged now; when it may, how many were held back since the last one.
	 * @return the count held back since the last line, or {@code -1} when this one must be held back too
	 */
	public long tryLog() {
		long now = System.nanoTime();
		long due = this.next.get();
		if (now - due >= 0 && this.next.compareAndSet(due, now + INTERVAL_NANOS)) {
			return this.suppressed.getAndSet(0);
		}
		this.suppressed.incrementAndGet();
		return -1;
	}

}

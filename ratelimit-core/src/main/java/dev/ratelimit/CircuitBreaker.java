package dev.ratelimit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Stops calls to a failing backend for a while: after {@code failureThreshold} failures in a row it
 * opens and refuses calls at once for {@code openDuration}; then it lets one probe through, and closes
 * when a call succeeds. Logs one WARN when it opens and one INFO when it closes, never a line per call.
 *
 * @since 0.1.0
 */
public final class CircuitBreaker {

	private static final Log logger = LogFactory.getLog(CircuitBreaker.class);

	/** The breaker's state. */
	public enum State {

		/** Calls go through. */
		CLOSED,

		/** Calls are refused at once until the open period is over. */
		OPEN,

		/** One probe call is under way; others are refused. */
		HALF_OPEN;

		/**
		 * Returns the state's name as the actuator endpoint shows it, such as {@code half-open}.
		 * @return the name
		 */
		public String id() {
			return Names.kebab(this);
		}

	}

	private final String name;

	private final int failureThreshold;

	private final long openNanos;

	private final LongSupplier nanoTime;

	private final AtomicInteger failures = new AtomicInteger();

	private final AtomicLong openedAt = new AtomicLong();

	private final AtomicLong probeStartedAt = new AtomicLong();

	private volatile State state = State.CLOSED;

	/**
	 * Creates a breaker on the system's monotonic clock.
	 * @param name what it protects, for log lines, such as {@code Redis}
	 * @param failureThreshold failures in a row that open it, at least 1
	 * @param openDuration how long it stays open before a probe, positive
	 */
	public CircuitBreaker(String name, int failureThreshold, Duration openDuration) {
		this(name, failureThreshold, openDuration, System::nanoTime);
	}

	/**
	 * Creates a breaker on a given monotonic clock, for tests.
	 * @param name what it protects, for log lines
	 * @param failureThreshold failures in a row that open it, at least 1
	 * @param openDuration how long it stays open before a probe, positive
	 * @param nanoTime the clock, in nanoseconds
	 */
	public CircuitBreaker(String name, int failureThreshold, Duration openDuration, LongSupplier nanoTime) {
		if (failureThreshold < 1) {
			throw new IllegalArgumentException("failureThreshold must be at least 1, but was " + failureThreshold);
		}
		if (openDuration == null || openDuration.isNegative() || openDuration.isZero()) {
			throw new IllegalArgumentException("openDuration must be positive, but was " + openDuration);
		}
		this.name = name;
		this.failureThreshold = failureThreshold;
		this.openNanos = openDuration.toNanos();
		this.nanoTime = nanoTime;
	}

	/**
	 * Returns whether a call may go through now; when it returns {@code true}, report the call's outcome
	 * with {@link #onSuccess()} or {@link #onFailure(Throwable)}.
	 * @return {@code true} when closed, or for the one probe once the open period is over (and for another
	 * when a probe has not reported back within an open period)
	 */
	public boolean tryAcquirePermission() {
		State current = this.state;
		if (current == State.CLOSED) {
			return true;
		}
		long now = this.nanoTime.getAsLong();
		boolean due = (current == State.OPEN) ? now - this.openedAt.get() >= this.openNanos
				: now - this.probeStartedAt.get() >= this.openNanos;
		if (due) {
			synchronized (this) {
				now = this.nanoTime.getAsLong();
				if ((this.state == State.OPEN && now - this.openedAt.get() >= this.openNanos)
						|| (this.state == State.HALF_OPEN && now - this.probeStartedAt.get() >= this.openNanos)) {
					this.state = State.HALF_OPEN;
					this.probeStartedAt.set(now);
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Reports a call that succeeded: the breaker closes.
	 */
	public void onSuccess() {
		// read before writing: every decision reports here, and a shared write per call costs all cores
		if (this.failures.get() != 0) {
			this.failures.set(0);
		}
		if (this.state != State.CLOSED) {
			synchronized (this) {
				if (this.state != State.CLOSED) {
					this.state = State.CLOSED;
					logger.info(this.name + " is available again; rate limits are enforced by it");
				}
			}
		}
	}

	/**
	 * Reports a call that failed: the breaker opens after enough failures in a row, or at once when the
	 * failed call was the probe.
	 * @param cause why the call failed
	 */
	public void onFailure(Throwable cause) {
		int count = this.failures.incrementAndGet();
		synchronized (this) {
			if (this.state == State.HALF_OPEN) {
				this.state = State.OPEN;
				this.openedAt.set(this.nanoTime.getAsLong());
				logger.debug(this.name + " is still unavailable: " + cause);
			}
			else if (this.state == State.CLOSED && count >= this.failureThreshold) {
				this.state = State.OPEN;
				this.openedAt.set(this.nanoTime.getAsLong());
				logger.warn(this.name + " is unavailable after " + count + " failed calls in a row (last: " + cause
						+ "); calls stop for " + Duration.ofNanos(this.openNanos).toMillis()
						+ "ms at a time while it is probed, and the failure mode applies", cause);
			}
			else if (logger.isDebugEnabled()) {
				logger.debug(this.name + " call failed (" + count + " in a row): " + cause);
			}
		}
	}

	/**
	 * Returns the breaker's state.
	 * @return the state
	 */
	public State state() {
		return this.state;
	}

}

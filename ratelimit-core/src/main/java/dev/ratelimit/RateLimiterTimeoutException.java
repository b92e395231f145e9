package dev.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a limiter gave up waiting for Redis: its timeout passed without an answer. Tells whose lateness it
 * was, so that an operator can tell a slow Redis from an application kept from a CPU, and choose the failure mode
 * knowingly.
 *
 * @since 0.1.0
 */
public class RateLimiterTimeoutException extends RateLimiterUnavailableException {

	private final Culprit culprit;

	/**
	 * Creates an exception.
	 * @param message what happened
	 * @param cause the underlying timeout, or {@code null}
	 * @param culprit whose lateness it was
	 */
	public RateLimiterTimeoutException(String message, @Nullable Throwable cause, Culprit culprit) {
		super(message, cause);
		this.culprit = culprit;
	}

	/**
	 * Returns whose lateness timed the call out.
	 * @return the culprit
	 */
	public Culprit culprit() {
		return this.culprit;
	}

	/**
	 * Whose lateness timed a call out.
	 */
	public enum Culprit {

		/**
		 * Redis: it did not answer within the timeout, not counting the time this application's threads were kept
		 * from a CPU meanwhile.
		 */
		REDIS("redis"),

		/**
		 * This application: its threads were kept from a CPU for so long (by other threads, other processes or
		 * garbage collection) that the call was given up although Redis may have answered in time; a decision is
		 * given that much more time, up to ten timeouts (at least a second), before it is given up.
		 */
		CLIENT("client");

		private final String tag;

		Culprit(String tag) {
			this.tag = tag;
		}

		/**
		 * Returns the culprit as metrics and logs name it: {@code redis} or {@code client}.
		 * @return the tag value
		 */
		public String tag() {
			return this.tag;
		}

	}

}

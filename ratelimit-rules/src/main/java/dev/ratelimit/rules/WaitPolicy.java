package dev.ratelimit.rules;

import java.time.Duration;

import dev.ratelimit.RateLimit;

/**
 * How a rule's refusals wait instead ({@code max-wait}, {@code max-waiting}): a call or request the rule would refuse
 * waits for the retry time the limiter gave (exact, from Redis's answer) and is decided again, as long as its whole
 * wait stays within {@code maxWait}; a slot of work in flight, which has no retry time, is asked for again after a
 * back-off growing from 10 ms to 200 ms. At most {@code maxWaiting} calls per rule wait at once in one instance; one
 * more is refused at once.
 *
 * @param maxWait the longest a call waits in all, more than zero
 * @param maxWaiting how many calls may wait at once for the rule in one instance, at least 1
 * @since 0.1.0
 */
public record WaitPolicy(Duration maxWait, int maxWaiting) {

	/** How many calls wait at once for one rule in one instance when {@code max-waiting} is not given. */
	public static final int DEFAULT_MAX_WAITING = 100;

	/**
	 * Checks the policy.
	 * @param maxWait the longest a call waits in all
	 * @param maxWaiting how many calls may wait at once
	 * @throws IllegalArgumentException when {@code maxWait} is not positive or longer than a rule's longest window, or
	 * {@code maxWaiting} is below 1
	 */
	public WaitPolicy {
		if (maxWait.isNegative() || maxWait.isZero() || maxWait.compareTo(RateLimit.MAX_WINDOW) > 0) {
			throw new IllegalArgumentException("maxWait must be more than zero and at most "
					+ RateLimit.label(RateLimit.MAX_WINDOW) + ", was " + maxWait);
		}
		if (maxWaiting < 1) {
			throw new IllegalArgumentException("maxWaiting must be at least 1, was " + maxWaiting);
		}
	}

}

package dev.ratelimit.method;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Keeps the retry time of a refused invocation for its next attempt, so that a retry is not decided before it.
 * Spring Framework's {@code @Retryable} makes each attempt of one invocation on a clone of its
 * {@code MethodInvocation} ({@code ProxyMethodInvocation.invocableClone()}), and the clones share the original's user
 * attributes; for a {@code Mono} or a {@code Flux} it resubscribes the one publisher the advisor returned, which holds
 * the invocation. Either way, the next attempt finds here the time the refusal gave.
 */
final class RetryTimes {

	/** The user attribute that holds the invocation's retry time, in {@link System#nanoTime()}. */
	private static final String NOT_BEFORE = RetryTimes.class.getName() + ".notBefore";

	private RetryTimes() {
	}

	/**
	 * Remembers that the invocation was refused with a retry time, unless that time is longer than the longest wait
	 * allowed: then its next attempt (if anything retries it) is decided at once, as without a retry time.
	 * @param invocation the refused invocation
	 * @param retryAfter the refusal's retry time
	 * @param maxWait the longest retry time an attempt waits for
	 */
	static void refused(MethodInvocation invocation, Duration retryAfter, Duration maxWait) {
		if (!(invocation instanceof ProxyMethodInvocation proxied)) {
			return;
		}
		if (retryAfter.isZero() || retryAfter.compareTo(maxWait) > 0) {
			proxied.setUserAttribute(NOT_BEFORE, null);
			return;
		}
		proxied.setUserAttribute(NOT_BEFORE, System.nanoTime() + retryAfter.toNanos());
	}

	/**
	 * Returns how long an attempt of the invocation must wait before it is decided: until the retry time of its last
	 * refusal, or zero.
	 * @param invocation the invocation attempted
	 * @return the time left until the retry time, never negative
	 */
	static long nanosToWait(MethodInvocation invocation) {
		if (invocation instanceof ProxyMethodInvocation proxied
				&& proxied.getUserAttribute(NOT_BEFORE) instanceof Long notBefore) {
			return Math.max(0, notBefore - System.nanoTime());
		}
		return 0;
	}

	/**
	 * Holds the calling thread until the invocation's retry time; an interrupted wait ends at once, leaving the
	 * thread interrupted, and the attempt is decided (and refused, before the retry time).
	 * @param invocation the invocation attempted
	 */
	static void await(MethodInvocation invocation) {
		long nanos = nanosToWait(invocation);
		// parkNanos may return early (spuriously): parked again until the time has come
		while (nanos > 0 && !Thread.currentThread().isInterrupted()) {
			LockSupport.parkNanos(nanos);
			nanos = nanosToWait(invocation);
		}
	}

}

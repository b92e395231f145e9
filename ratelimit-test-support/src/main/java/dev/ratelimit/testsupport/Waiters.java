package dev.ratelimit.testsupport;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What tests of {@code max-wait} check: how many threads sleep waiting for a permit, and how the permits of waiting
 * calls fell into windows.
 *
 * @since 0.1.0
 */
public final class Waiters {

	private static final String WAITS = "dev.ratelimit.rules.internal.RuleWaits";

	private Waiters() {
	}

	/**
	 * Counts the threads of this JVM that sleep waiting for a permit: a blocking call's thread does, an asynchronous
	 * call holds none.
	 * @return the threads held by waiting calls now
	 */
	public static int threadsWaiting() {
		int waiting = 0;
		for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
			for (StackTraceElement frame : stack) {
				if (frame.getClassName().equals(WAITS) && frame.getMethodName().equals("pause")) {
					waiting++;
					break;
				}
			}
		}
		return waiting;
	}

	/**
	 * Groups moments in milliseconds that come in bursts (the permits of one window, granted together to the calls
	 * that waited for it) and counts each burst: a new one starts after a gap of more than half a second, so windows
	 * of a second or more are told apart.
	 * @param moments the moments, in milliseconds on one clock, in any order
	 * @return how many moments each burst holds, in time order
	 */
	public static List<Integer> perWindow(Collection<Long> moments) {
		List<Long> sorted = new ArrayList<>(moments);
		sorted.sort(null);
		List<Integer> counts = new ArrayList<>();
		long previous = Long.MIN_VALUE;
		for (long moment : sorted) {
			if (counts.isEmpty() || moment - previous > 500) {
				counts.add(0);
			}
			counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
			previous = moment;
		}
		return counts;
	}

}

package dev.ratelimit.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for servers started here to reach a state, such as a formed cluster; the test support has no
 * Awaitility so as not to hand it to the sample application.
 */
final class Polling {

	private static final long INTERVAL_MILLIS = 50;

	private Polling() {
	}

	/**
	 * Polls {@code check} until it holds.
	 * @param what the awaited state, for the error message
	 * @param timeout how long to wait at most
	 * @param check the condition
	 * @throws IllegalStateException when it does not hold in time
	 */
	static void until(String what, Duration timeout, BooleanSupplier check) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!check.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Gave up waiting for " + what + " after " + timeout.toSeconds() + "s");
			}
			try {
				Thread.sleep(INTERVAL_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + what, ex);
			}
		}
	}

}

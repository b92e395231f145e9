package dev.ratelimit.rules.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.WaitPolicy;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.RateLimitObserver.WaitOutcome;

/**
 * The calls that wait in this instance for a permit of rules with {@code max-wait}, counted per rule against its
 * {@code max-waiting}, and how long each waits: the retry time of the limits that refused it, exact from Redis's
 * answer (plus a millisecond, so that the next decision falls after the window or the refill Redis meant), or, for a
 * slot of work in flight, which has no retry time, a back-off from 10 ms doubling to 200 ms. A wait never holds a
 * thread of an asynchronous decision: it resumes on a timer.
 */
final class RuleWaits {

	/** Added to a retry time, so that the call is decided again after the moment Redis meant, not just before it. */
	private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long FIRST_BACK_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private static final long MAX_BACK_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	private static final CompletableFuture<Boolean> RESUMED = CompletableFuture.completedFuture(true);

	private static final CompletableFuture<Boolean> INTERRUPTED = CompletableFuture.completedFuture(false);

	private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();

	private final ObservedDecisions observation;

	private final LongSupplier nanoTime;

	RuleWaits(ObservedDecisions observation, LongSupplier nanoTime) {
		this.observation = observation;
		this.nanoTime = nanoTime;
	}

	/**
	 * Starts the waits of one call, when one of its rules may make it wait.
	 * @param applicable the rules that apply to the call
	 * @return its waits, or {@code null} when none of the rules waits
	 */
	@Nullable Wait begin(List<RateLimitRule> applicable) {
		for (RateLimitRule rule : applicable) {
			if (rule.waiting() != null) {
				return new Wait(this.nanoTime.getAsLong());
			}
		}
		return null;
	}

	/**
	 * Lets time pass before a call is decided again: a synchronous decision's thread sleeps, an asynchronous one
	 * resumes on a timer, no thread held meanwhile.
	 * @param nanos how long
	 * @param async whether the decision is asynchronous
	 * @return completes with {@code true} once the time has passed, {@code false} when the thread was interrupted
	 */
	static CompletableFuture<Boolean> pause(long nanos, boolean async) {
		if (async) {
			return CompletableFuture.supplyAsync(() -> true,
					CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS));
		}
		try {
			TimeUnit.NANOSECONDS.sleep(nanos);
			return RESUMED;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return INTERRUPTED;
		}
	}

	/**
	 * The waits of one call: for one rule at a time, counted in that rule's waiters while it waits.
	 */
	final class Wait {

		private final long started;

		private @Nullable RateLimitRule queuedFor;

		private int backOffs;

		private long pending = -1;

		private Wait(long started) {
			this.started = started;
		}

		/**
		 * Decides whether a call a rule refused waits for its permit; the time to wait is then {@link #take()}n.
		 * @param rule the rule that refused it
		 * @param violated the limits that refused it
		 * @return {@code true} when it waits, {@code false} when it is refused: the rule has no {@code max-wait}, the
		 * permit comes after it, or the rule's {@code max-waiting} calls already wait
		 */
		boolean waitsFor(RateLimitRule rule, List<AppliedLimit> violated) {
			WaitPolicy policy = rule.waiting();
			if (policy == null) {
				return false;
			}
			long wait = 0;
			boolean slot = false;
			for (AppliedLimit limit : violated) {
				if (limit.concurrency()) {
					slot = true;
				}
				else {
					wait = Math.max(wait, limit.decision().retryAfter().toNanos());
				}
			}
			if (wait > 0) {
				wait += MARGIN_NANOS;
			}
			else if (slot) {
				wait = Math.min(FIRST_BACK_OFF_NANOS << Math.min(this.backOffs, 10), MAX_BACK_OFF_NANOS);
				this.backOffs++;
			}
			long now = RuleWaits.this.nanoTime.getAsLong();
			if (now + wait - this.started - policy.maxWait().toNanos() > 0) {
				// the permit would come too late: refused now, not after a wait that cannot end well
				leave(rule, WaitOutcome.REFUSED, now);
				return false;
			}
			if (this.queuedFor != rule) {
				release();
				AtomicInteger count = RuleWaits.this.waiting.get(rule.name());
				if (count == null) {
					AtomicInteger created = new AtomicInteger();
					count = RuleWaits.this.waiting.putIfAbsent(rule.name(), created);
					if (count == null) {
						count = created;
						RuleWaits.this.observation.waiting(rule, created::get);
					}
				}
				if (count.incrementAndGet() > policy.maxWaiting()) {
					count.decrementAndGet();
					RuleWaits.this.observation.waited(rule, WaitOutcome.QUEUE_FULL, now - this.started);
					return false;
				}
				this.queuedFor = rule;
			}
			this.pending = wait;
			return true;
		}

		/**
		 * Returns the time to wait that {@link #waitsFor} decided, once.
		 * @return nanoseconds
		 */
		long take() {
			long wait = this.pending;
			this.pending = -1;
			return wait;
		}

		/**
		 * Returns whether {@link #waitsFor} decided a wait not taken yet.
		 * @return {@code true} when the call is to wait
		 */
		boolean pending() {
			return this.pending >= 0;
		}

		/**
		 * Ends the call's waits once it is decided for good, and tells the observer.
		 * @param allowed whether the call was allowed
		 * @return how long it waited in all, 0 when it did not
		 */
		long end(boolean allowed) {
			RateLimitRule rule = this.queuedFor;
			if (rule == null) {
				return 0;
			}
			long now = RuleWaits.this.nanoTime.getAsLong();
			leave(rule, allowed ? WaitOutcome.PERMITTED : WaitOutcome.REFUSED, now);
			return now - this.started;
		}

		private void leave(RateLimitRule rule, WaitOutcome outcome, long now) {
			RateLimitRule queued = this.queuedFor;
			release();
			// a rule whose retry time is beyond its max-wait at once is a wait refused too, of no time
			RuleWaits.this.observation.waited((queued != null) ? queued : rule, outcome,
					(queued != null) ? now - this.started : 0);
		}

		private void release() {
			RateLimitRule queued = this.queuedFor;
			if (queued != null) {
				AtomicInteger count = RuleWaits.this.waiting.get(queued.name());
				if (count != null) {
					count.decrementAndGet();
				}
				this.queuedFor = null;
			}
		}

	}

}

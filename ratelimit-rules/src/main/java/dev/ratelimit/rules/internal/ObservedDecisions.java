package dev.ratelimit.rules.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.ratelimit.rules.flow.RateLimitObserver.Outcome;
import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.rules.RateLimitRule;

/**
 * Tells the observer (metrics, traces) of a request's decisions so that it can never fail the request: what
 * it throws is logged, and a decision whose observer failed is sent and decided all the same.
 */
final class ObservedDecisions {

	/** What a decision reports to when its observer failed to start it. */
	private static final RateLimitObserver.Decision UNOBSERVED = (outcome, nanos) -> {
	};

	private final RateLimitObserver observer;

	private final EnforcerLogs logs;

	ObservedDecisions(RateLimitObserver observer, EnforcerLogs logs) {
		this.observer = observer;
		this.logs = logs;
	}

	RateLimitObserver.Request begin() {
		try {
			return this.observer.begin();
		}
		catch (RuntimeException ex) {
			// metrics and traces must never fail a request
			this.logs.unexpected(ex);
			return (rule) -> UNOBSERVED;
		}
	}

	/** Sends a rule's Redis call as its observer wants it sent; an observer that fails sends it plainly. */
	<T> CompletableFuture<T> around(RateLimitObserver.Decision observed, Supplier<CompletableFuture<T>> send) {
		boolean[] sent = new boolean[1];
		try {
			return observed.around(() -> {
				sent[0] = true;
				return send.get();
			});
		}
		catch (RuntimeException ex) {
			if (sent[0]) {
				throw ex;
			}
			this.logs.unexpected(ex);
			return send.get();
		}
	}

	RateLimitObserver.Decision start(RateLimitObserver.Request observing, RateLimitRule rule) {
		try {
			return observing.start(rule);
		}
		catch (RuntimeException ex) {
			// metrics and traces must never fail a request
			this.logs.unexpected(ex);
			return UNOBSERVED;
		}
	}

	/** Tells the observer what an allowed request left of a rule's tightest limit. */
	void budgetLeft(RateLimitRule rule, long remaining, long limit) {
		try {
			this.observer.onBudgetLeft(rule, remaining, limit);
		}
		catch (RuntimeException ex) {
			this.logs.unexpected(ex);
		}
	}

	/** Tells the observer how a call's wait for a rule's permit ended. */
	void waited(RateLimitRule rule, RateLimitObserver.WaitOutcome outcome, long nanos) {
		try {
			this.observer.onWait(rule, outcome, nanos);
		}
		catch (RuntimeException ex) {
			this.logs.unexpected(ex);
		}
	}

	/** Hands the observer the live count of the calls that wait for a rule's permit. */
	void waiting(RateLimitRule rule, java.util.function.IntSupplier waiting) {
		try {
			this.observer.onWaiting(rule, waiting);
		}
		catch (RuntimeException ex) {
			this.logs.unexpected(ex);
		}
	}

	void end(RateLimitObserver.Decision decision, Outcome outcome, long nanos) {
		try {
			decision.end(outcome, nanos);
		}
		catch (RuntimeException ex) {
			this.logs.unexpected(ex);
		}
	}

}

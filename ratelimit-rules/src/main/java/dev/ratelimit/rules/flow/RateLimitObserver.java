package dev.ratelimit.rules.flow;

import java.util.List;
import java.util.function.Supplier;
import dev.ratelimit.rules.RateLimitRule;

/**
 * Learns of every decision the rules take for requests, for metrics and traces.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RateLimitObserver {

	/** An observer that does nothing. */
	RateLimitObserver NONE = (rule, outcome, nanos) -> {
	};

	/**
	 * Called once per rule applied to a request.
	 * @param rule the rule
	 * @param outcome what the rule decided
	 * @param nanos how long the decision took, the Redis round trip included
	 */
	void onDecision(RateLimitRule rule, Outcome outcome, long nanos);

	/**
	 * Called once per rule that allowed a request, before its decision ends, with what the request left of the rule's
	 * tightest limit (the one with the least left, as a share of the limit): an observer counts the decisions that come
	 * near the limit, so that an alert fires before clients are refused. By default it does nothing.
	 * @param rule the rule
	 * @param remaining what the request left of that limit
	 * @param limit the limit
	 * @since 0.1.0
	 */
	default void onBudgetLeft(RateLimitRule rule, long remaining, long limit) {
	}

	/**
	 * Called once per call that a rule with {@code max-wait} would have refused, when its waiting ends: it got its
	 * permit after waiting, it was refused because the permit would come after {@code max-wait}, or it was refused at
	 * once because {@code max-waiting} calls already waited. By default it does nothing.
	 * @param rule the rule it waited for
	 * @param outcome how the wait ended
	 * @param nanos how long it waited in all, 0 when it did not wait
	 * @since 0.1.0
	 */
	default void onWait(RateLimitRule rule, WaitOutcome outcome, long nanos) {
	}

	/**
	 * Called once per rule with {@code max-wait}, when a call first waits for it in this instance, with the live count
	 * of the calls that wait for it: an observer publishes it (a gauge, say). By default it does nothing.
	 * @param rule the rule
	 * @param waiting how many calls wait for the rule's permit now, read whenever asked
	 * @since 0.1.0
	 */
	default void onWaiting(RateLimitRule rule, java.util.function.IntSupplier waiting) {
	}

	/**
	 * Called when a rule starts deciding a request, before its limiter is asked: an observer that wraps
	 * the decision (a trace span, say) starts it here. By default the returned end reports to
	 * {@link #onDecision}.
	 * @param rule the rule
	 * @return what to call once the rule has decided
	 */
	default Decision start(RateLimitRule rule) {
		return (outcome, nanos) -> onDecision(rule, outcome, nanos);
	}

	/**
	 * Called once per request, on the thread that asks for its decision and before any rule is decided, with
	 * what the request's stack makes current there (its server observation, say): the rules of the request are
	 * then started through the returned request, on whichever thread each one's turn comes, and still belong
	 * to that request. By default every rule is started with {@link #start}.
	 * @return what starts each rule's decision for this request
	 * @since 0.1.0
	 */
	default Request begin() {
		return this::start;
	}

	/**
	 * The decisions of one request.
	 *
	 * @since 0.1.0
	 */
	@FunctionalInterface
	interface Request {

		/**
		 * Called when a rule starts deciding the request, before its limiter is asked.
		 * @param rule the rule
		 * @return what to call once the rule has decided
		 */
		Decision start(RateLimitRule rule);

	}

	/**
	 * The end of one rule's decision.
	 */
	@FunctionalInterface
	interface Decision {

		/**
		 * Called once the rule has decided.
		 * @param outcome what the rule decided
		 * @param nanos how long the decision took, the Redis round trip included
		 */
		void end(Outcome outcome, long nanos);

		/**
		 * Runs the sending of the rule's Redis call, on the thread that asks for the decision: an observer that
		 * makes its decision current around it (a trace span, say) does so here, and only here, for the answer
		 * may come on another thread. By default it just sends.
		 * @param send sends the call and returns its pending answer
		 * @param <T> the pending answer's type
		 * @return what {@code send} returned
		 * @since 0.1.0
		 */
		default <T> T around(Supplier<T> send) {
			return send.get();
		}

	}

	/**
	 * Returns an observer that tells every one of {@code observers}.
	 * @param observers the observers
	 * @return the observer, {@link #NONE} when there are none
	 */
	static RateLimitObserver composite(List<? extends RateLimitObserver> observers) {
		if (observers.isEmpty()) {
			return NONE;
		}
		if (observers.size() == 1) {
			return observers.get(0);
		}
		List<RateLimitObserver> all = List.copyOf(observers);
		return new RateLimitObserver() {

			@Override
			public void onDecision(RateLimitRule rule, Outcome outcome, long nanos) {
				all.forEach((observer) -> observer.onDecision(rule, outcome, nanos));
			}

			@Override
			public void onBudgetLeft(RateLimitRule rule, long remaining, long limit) {
				all.forEach((observer) -> observer.onBudgetLeft(rule, remaining, limit));
			}

			@Override
			public void onWait(RateLimitRule rule, WaitOutcome outcome, long nanos) {
				all.forEach((observer) -> observer.onWait(rule, outcome, nanos));
			}

			@Override
			public void onWaiting(RateLimitRule rule, java.util.function.IntSupplier waiting) {
				all.forEach((observer) -> observer.onWaiting(rule, waiting));
			}

			@Override
			public Decision start(RateLimitRule rule) {
				return all(all.stream().map((observer) -> observer.start(rule)).toList());
			}

			@Override
			public Request begin() {
				List<Request> requests = all.stream().map(RateLimitObserver::begin).toList();
				return (rule) -> all(requests.stream().map((request) -> request.start(rule)).toList());
			}

			private Decision all(List<Decision> started) {
				return new Decision() {

					@Override
					public void end(Outcome outcome, long nanos) {
						started.forEach((decision) -> decision.end(outcome, nanos));
					}

					@Override
					public <T> T around(Supplier<T> send) {
						Supplier<T> nested = send;
						for (Decision decision : started) {
							Supplier<T> inner = nested;
							nested = () -> decision.around(inner);
						}
						return nested.get();
					}

				};
			}

		};
	}

	/**
	 * What a rule decided for a request.
	 */
	enum Outcome {

		/** The rule allowed the request. */
		ALLOWED("allowed"),

		/** The rule refused the request with 429. */
		REJECTED("rejected"),

		/** A rule in shadow mode would have refused the request, and let it pass. */
		SHADOW_REJECTED("shadow-rejected"),

		/**
		 * A soft rule ({@code enforce=false}) found the request over its limit, and let it pass: its handler is told
		 * ({@link RateLimitContext}).
		 */
		SOFT_EXCEEDED("soft-exceeded"),

		/** No decision could be reached; the failure mode applied. */
		ERROR("error"),

		/** The request lacked the rule's key: the rule did not apply ({@code missing-key=skip}) or refused
		 * it with 400 ({@code missing-key=reject}). */
		MISSING_KEY("missing-key"),

		/** An earlier rule refused the request before this one was decided: nothing was charged. */
		NOT_REACHED("not-reached"),

		/**
		 * The rule refused the request for now, and it waits for a permit ({@code max-wait}): it is decided again once
		 * the retry time has passed, and that decision is reported too.
		 */
		WAITED("waited");

		private final String tag;

		Outcome(String tag) {
			this.tag = tag;
		}

		/**
		 * Returns the outcome as a metric tag value.
		 * @return the tag value, such as {@code shadow-rejected}
		 */
		public String tag() {
			return this.tag;
		}

	}


	/**
	 * How the wait of a call for a rule's permit ended ({@code max-wait}).
	 *
	 * @since 0.1.0
	 */
	enum WaitOutcome {

		/** The call got its permit after waiting. */
		PERMITTED("permitted"),

		/**
		 * The call was refused after all: its permit would have come after {@code max-wait}, or a limit without
		 * {@code max-wait} refused it once it had waited.
		 */
		REFUSED("refused"),

		/** {@code max-waiting} calls already waited for the rule in this instance: the call was refused at once. */
		QUEUE_FULL("queue-full");

		private final String tag;

		WaitOutcome(String tag) {
			this.tag = tag;
		}

		/**
		 * Returns the outcome as a metric tag value.
		 * @return the tag value, such as {@code queue-full}
		 */
		public String tag() {
			return this.tag;
		}

	}

}

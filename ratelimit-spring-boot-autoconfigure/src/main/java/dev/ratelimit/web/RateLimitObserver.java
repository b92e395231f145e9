package dev.ratelimit.web;

import java.util.List;

/**
 * Learns of every decision the rules take for requests, for metrics and traces.
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
			public Decision start(RateLimitRule rule) {
				List<Decision> started = all.stream().map((observer) -> observer.start(rule)).toList();
				return (outcome, nanos) -> started.forEach((decision) -> decision.end(outcome, nanos));
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

		/** No decision could be reached; the failure mode applied. */
		ERROR("error"),

		/** The request lacked the rule's key: the rule did not apply ({@code missing-key=skip}) or refused
		 * it with 400 ({@code missing-key=reject}). */
		MISSING_KEY("missing-key"),

		/** An earlier rule refused the request before this one was decided: nothing was charged. */
		NOT_REACHED("not-reached");

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

}

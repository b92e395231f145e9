package dev.ratelimit.web;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Makes each rule's decision an {@link Observation} named {@value #NAME}, with the low-cardinality key
 * values {@code rule} and {@code outcome}: in traces, the Redis round trip of a decision shows next to
 * the request, as a child of its observation. Never a client key.
 */
public final class ObservationRateLimitObserver implements RateLimitObserver {

	/** The name of the observations. */
	public static final String NAME = "ratelimit.decision";

	private final ObservationRegistry registry;

	/**
	 * Creates an observer.
	 * @param registry where the observations go
	 */
	public ObservationRateLimitObserver(ObservationRegistry registry) {
		this.registry = registry;
	}

	@Override
	public Decision start(RateLimitRule rule) {
		Observation observation = Observation.createNotStarted(NAME, this.registry)
			.contextualName("ratelimit " + rule.name())
			.lowCardinalityKeyValue("rule", rule.name())
			.start();
		Observation.Scope scope = observation.openScope();
		return (outcome, nanos) -> {
			scope.close();
			observation.lowCardinalityKeyValue("outcome", outcome.tag()).stop();
		};
	}

	@Override
	public void onDecision(RateLimitRule rule, Outcome outcome, long nanos) {
		// observations are started and stopped around the decision
	}

}

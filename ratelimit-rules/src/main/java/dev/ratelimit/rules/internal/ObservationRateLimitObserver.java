package dev.ratelimit.rules.internal;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitObserver;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Makes each rule's decision an {@link Observation} named {@value #NAME}, with the low-cardinality key
 * values {@code rule} and {@code outcome}: in traces, the Redis round trip of a decision shows next to
 * the request, as a child of its observation. Never a client key.
 *
 * @since 0.1.0
 */
final class ObservationRateLimitObserver implements RateLimitObserver {

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
		return begin().start(rule);
	}

	/**
	 * Takes the observation current on the calling thread (the request's: the servlet stack makes it current
	 * on the request's thread, the WebFlux filters and the gateway from the exchange's Reactor context) as the
	 * parent of every decision of the request, whichever thread each one starts on. A decision's observation is
	 * current only while its Redis call is sent, on the thread that sends it: never across threads, so that no
	 * later request served by an event loop finds an earlier request's decision current there.
	 */
	@Override
	public Request begin() {
		Observation parent = this.registry.getCurrentObservation();
		return (rule) -> {
			Observation observation = Observation.createNotStarted(NAME, this.registry)
				.contextualName("ratelimit " + rule.name())
				.lowCardinalityKeyValue("rule", rule.name())
				.parentObservation(parent)
				.start();
			return new Decision() {

				@Override
				public void end(Outcome outcome, long nanos) {
					observation.lowCardinalityKeyValue("outcome", outcome.tag()).stop();
				}

				@Override
				public <T> T around(Supplier<T> send) {
					return observation.scoped(send);
				}

			};
		};
	}

	@Override
	public void onDecision(RateLimitRule rule, Outcome outcome, long nanos) {
		// observations are started and stopped around the decision
	}

}

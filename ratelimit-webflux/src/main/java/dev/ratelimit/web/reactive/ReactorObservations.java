package dev.ratelimit.web.reactive;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import reactor.util.context.ContextView;

/**
 * For reactive entry points of the request flow (the WebFlux filters, Spring Cloud Gateway's rate limiter):
 * asks for a decision with the request's server observation current, so that the decisions' observations are its
 * children.
 *
 * @since 0.1.0
 */
public final class ReactorObservations {

	private ReactorObservations() {
	}

	/**
	 * Runs {@code call} with the server observation of the request's Reactor context current; the scope opens and
	 * closes on the calling thread.
	 * @param context the Reactor context of the request's chain
	 * @param call asks for the decision
	 * @param <T> what the call returns
	 * @return what the call returned
	 */
	public static <T> T inRequest(ContextView context, Supplier<T> call) {
		Object server = context.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
		// a no-op observation (no handler registered) has no children: opening its scope would only cost
		return (server instanceof Observation observation && !observation.isNoop()) ? observation.scoped(call)
				: call.get();
	}

}

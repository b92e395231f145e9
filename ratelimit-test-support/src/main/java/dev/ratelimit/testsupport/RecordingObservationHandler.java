package dev.ratelimit.testsupport;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;

/**
 * Records every observation that stops, for tests of what a trace would show (each observation's name and
 * parent). As a bean, Spring Boot registers it with the application's {@code ObservationRegistry}.
 */
public final class RecordingObservationHandler implements ObservationHandler<Observation.Context> {

	private final Queue<Observation.Context> stopped = new ConcurrentLinkedQueue<>();

	@Override
	public void onStop(Observation.Context context) {
		this.stopped.add(context);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return true;
	}

	/**
	 * Returns the observations of a name that stopped, in the order they stopped.
	 * @param name the observations' name
	 * @return their contexts
	 */
	public List<Observation.Context> stopped(String name) {
		return this.stopped.stream().filter((context) -> name.equals(context.getName())).toList();
	}

	/**
	 * Forgets what was recorded.
	 */
	public void clear() {
		this.stopped.clear();
	}

}

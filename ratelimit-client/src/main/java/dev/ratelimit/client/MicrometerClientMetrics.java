package dev.ratelimit.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Partner budgets' counts as Micrometer counters, tagged with the partner's name ({@code client}):
 * {@code ratelimit.client.waits}, {@code ratelimit.client.given.up} and {@code ratelimit.client.partner.refusals}
 * (tagged with the answer's {@code status} too).
 */
final class MicrometerClientMetrics implements ClientMetrics {

	/** Calls that waited for a permit. */
	static final String WAITS = "ratelimit.client.waits";

	/** Calls that failed because the wait would pass {@code max-wait}. */
	static final String GIVEN_UP = "ratelimit.client.given.up";

	/** Answers of the partner that blocked its budget. */
	static final String PARTNER_REFUSALS = "ratelimit.client.partner.refusals";

	private final MeterRegistry registry;

	/**
	 * Creates the metrics.
	 * @param registry where the counters are
	 */
	MicrometerClientMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void waited(String client) {
		Counter.builder(WAITS).description("Calls to a partner that waited for a permit").tag("client", client)
			.register(this.registry).increment();
	}

	@Override
	public void gaveUp(String client) {
		Counter.builder(GIVEN_UP).description("Calls to a partner refused because a permit would come after max-wait")
			.tag("client", client).register(this.registry).increment();
	}

	@Override
	public void partnerRefused(String client, String status) {
		Counter.builder(PARTNER_REFUSALS).description("Answers of a partner that blocked its budget")
			.tag("client", client).tag("status", status).register(this.registry).increment();
	}

}

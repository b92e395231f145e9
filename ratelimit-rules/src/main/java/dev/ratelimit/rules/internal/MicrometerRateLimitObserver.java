package dev.ratelimit.rules.internal;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitObserver;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Records decisions as Micrometer meters: a counter {@code ratelimit.decisions} tagged with the rule
 * and the outcome, and a timer {@code ratelimit.decision.duration} tagged with the rule. Tag values are
 * bounded: rule names and outcomes, never client keys.
 *
 * @since 0.1.0
 */
final class MicrometerRateLimitObserver implements RateLimitObserver {

	/** The counter of decisions. */
	public static final String DECISIONS = "ratelimit.decisions";

	/** The timer of decisions, the Redis round trip included. */
	public static final String DURATION = "ratelimit.decision.duration";

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	/**
	 * Creates an observer.
	 * @param registry where the meters go
	 */
	public MicrometerRateLimitObserver(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onDecision(RateLimitRule rule, Outcome outcome, long nanos) {
		this.counters
			.computeIfAbsent(rule.name() + '\u0000' + outcome.tag(), (key) -> Counter.builder(DECISIONS)
				.description("Rate-limit decisions by rule and outcome")
				.tag("rule", rule.name())
				.tag("outcome", outcome.tag())
				.register(this.registry))
			.increment();
		this.timers
			.computeIfAbsent(rule.name(), (key) -> Timer.builder(DURATION)
				.description("Time to reach a rate-limit decision, the Redis round trip included")
				.tag("rule", rule.name())
				.register(this.registry))
			.record(nanos, TimeUnit.NANOSECONDS);
	}

}

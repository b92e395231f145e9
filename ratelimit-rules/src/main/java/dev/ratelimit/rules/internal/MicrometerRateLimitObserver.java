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
 * and the outcome, a timer {@code ratelimit.decision.duration} tagged with the rule, and a counter
 * {@code ratelimit.decisions.near-limit} tagged with the rule, of the allowed decisions that left a limit of the rule
 * at or below {@code 1 - nearLimitRatio} of it (they count as {@code allowed} too), and a timer {@code ratelimit.waits}
 * tagged with the rule and how the wait ended ({@code permitted}, {@code refused}, {@code queue-full}) of the calls
 * that rules with {@code max-wait} made wait, with a gauge {@code ratelimit.waiting} tagged with the rule of how many wait
 * now. Tag values are
 * bounded: rule names and outcomes, never client keys.
 *
 * @since 0.1.0
 */
final class MicrometerRateLimitObserver implements RateLimitObserver {

	/** The counter of decisions. */
	public static final String DECISIONS = "ratelimit.decisions";

	/** The counter of allowed decisions that came near a limit. */
	public static final String NEAR_LIMIT = "ratelimit.decisions.near-limit";

	/** The share of a limit used past which a decision counts as near the limit, by default. */
	static final double DEFAULT_NEAR_LIMIT_RATIO = 0.8;

	/** Room for the rounding of ratios such as 0.8, which doubles do not hold exactly. */
	private static final double EPSILON = 1e-9;

	/** The timer of the waits of calls for a permit ({@code max-wait}), by rule and how they ended. */
	public static final String WAITS = "ratelimit.waits";

	/** The gauge of the calls waiting for a rule's permit now ({@code max-wait}), by rule. */
	public static final String WAITING = "ratelimit.waiting";

	/** The timer of decisions, the Redis round trip included. */
	public static final String DURATION = "ratelimit.decision.duration";

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	private final Map<String, Counter> nearLimit = new ConcurrentHashMap<>();

	private final Map<String, Timer> waits = new ConcurrentHashMap<>();

	private final double nearLimitRatio;

	/**
	 * Creates an observer.
	 * @param registry where the meters go
	 * @param nearLimitRatio the share of a limit used at or past which an allowed decision counts as near the limit;
	 * more than 0, at most 1
	 */
	MicrometerRateLimitObserver(MeterRegistry registry, double nearLimitRatio) {
		if (!(nearLimitRatio > 0 && nearLimitRatio <= 1)) {
			throw new IllegalArgumentException("must be more than 0 and at most 1 (the share of a limit used at which "
					+ "a decision counts as near the limit, 0.8 by default), but was " + nearLimitRatio);
		}
		this.registry = registry;
		this.nearLimitRatio = nearLimitRatio;
	}

	@Override
	public void onBudgetLeft(RateLimitRule rule, long remaining, long limit) {
		if (limit <= 0 || (double) (limit - remaining) / limit < this.nearLimitRatio - EPSILON) {
			return;
		}
		this.nearLimit
			.computeIfAbsent(rule.name(), (key) -> Counter.builder(NEAR_LIMIT)
				.description("Allowed rate-limit decisions that left a limit of their rule at or below "
						+ "1 - ratelimit.metrics.near-limit-ratio of it")
				.tag("rule", rule.name())
				.register(this.registry))
			.increment();
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

	@Override
	public void onWait(RateLimitRule rule, WaitOutcome outcome, long nanos) {
		this.waits
			.computeIfAbsent(rule.name() + '\u0000' + outcome.tag(), (key) -> Timer.builder(WAITS)
				.description("Time calls waited for a permit of a rule with max-wait, by how the wait ended")
				.tag("rule", rule.name())
				.tag("outcome", outcome.tag())
				.register(this.registry))
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onWaiting(RateLimitRule rule, java.util.function.IntSupplier waiting) {
		io.micrometer.core.instrument.Gauge.builder(WAITING, waiting::getAsInt)
			.description("Calls waiting for a permit of a rule with max-wait now")
			.tag("rule", rule.name())
			.strongReference(true)
			.register(this.registry);
	}

}

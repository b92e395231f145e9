package dev.ratelimit.rules.internal;

import java.time.Duration;
import java.util.List;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.rules.LimitDefinition;
import dev.ratelimit.rules.MissingKey;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.TestRules;
import dev.ratelimit.rules.flow.RateLimitObserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The near-limit counter: which budgets left count at a ratio, and which ratios are refused.
 */
class MicrometerRateLimitObserverTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RateLimitRule rule = TestRules.factory(Algorithm.FIXED_WINDOW)
		.create("api", List.of("/api"), List.of(), List.of(new LimitDefinition("", 10L, Duration.ofMinutes(1), null)),
				null, null, MissingKey.CLIENT_ADDRESS, 1, null);

	@Test
	void countsTheBudgetsLeftAtOrBelowOneMinusTheRatioOfTheLimit() {
		RateLimitObserver observer = RateLimitEngine.Builder.micrometerObserver(this.registry);
		for (long remaining = 9; remaining >= 0; remaining--) {
			observer.onBudgetLeft(this.rule, remaining, 10);
		}
		// 0.8 of 10: 2, 1 and 0 left, not 3
		assertThat(nearLimit()).isEqualTo(3);
		observer.onBudgetLeft(this.rule, 199, 1000);
		observer.onBudgetLeft(this.rule, 200, 1000);
		observer.onBudgetLeft(this.rule, 201, 1000);
		assertThat(nearLimit()).isEqualTo(5);
	}

	@Test
	void countsOnlyWhatLeavesNothingAtRatioOne() {
		RateLimitObserver observer = RateLimitEngine.Builder.micrometerObserver(this.registry, 1);
		observer.onBudgetLeft(this.rule, 1, 10);
		observer.onBudgetLeft(this.rule, 0, 10);
		assertThat(nearLimit()).isEqualTo(1);
	}

	@Test
	void isToldThroughACompositeToo() {
		RateLimitObserver observer = RateLimitObserver.composite(
				List.of(RateLimitEngine.Builder.micrometerObserver(this.registry), RateLimitObserver.NONE));
		observer.onBudgetLeft(this.rule, 0, 10);
		assertThat(nearLimit()).isEqualTo(1);
	}

	@Test
	void refusesARatioOutOfRange() {
		for (double ratio : new double[] { 0, -0.1, 1.01, Double.NaN }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> RateLimitEngine.Builder.micrometerObserver(this.registry, ratio))
				.withMessageContaining("must be more than 0 and at most 1");
		}
	}

	private double nearLimit() {
		Counter counter = this.registry.find("ratelimit.decisions.near-limit").tag("rule", "api").counter();
		return (counter != null) ? counter.count() : 0;
	}

}

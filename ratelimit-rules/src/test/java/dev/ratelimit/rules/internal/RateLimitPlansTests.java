package dev.ratelimit.rules.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.rules.LimitDefinition;
import dev.ratelimit.rules.MissingKey;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.TestRules;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plan cache, without Redis: bounded in bytes (long keys remembered by their SHA-256, answers that name no
 * plan of the rule remembered as none), distinct keys kept apart.
 */
class RateLimitPlansTests {

	private final RateLimitRuleFactory factory = TestRules.factory(Algorithm.FIXED_WINDOW);

	private final RateLimitRule rule = this.factory.withPlans(
			this.factory.create("api", List.of("/api/**"), List.of(),
					List.of(new LimitDefinition("", 2L, Duration.ofMinutes(1), null)), null, "header:X-Api-Key",
					MissingKey.CLIENT_ADDRESS, 1, null),
			"bean:plans", Map.of("pro", List.of(new LimitDefinition("plans.pro.", 5L, Duration.ofMinutes(1), null))),
			(name) -> true);

	private final AtomicInteger calls = new AtomicInteger();

	private final AtomicLong now = new AtomicLong();

	@Test
	void remembersALongKeyByItsHashKeepingKeysThatDifferAtTheEndApart() {
		RateLimitPlans plans = new RateLimitPlans((name) -> (rule, key) -> {
			this.calls.incrementAndGet();
			return key.endsWith("-pro") ? "pro" : null;
		}, Duration.ofMinutes(1), 100, this.now::get);
		String longKey = "k".repeat(1_000_000);
		assertThat(plans.plan(this.rule, longKey + "-pro")).isEqualTo("pro");
		assertThat(plans.plan(this.rule, longKey + "-free")).isNull();
		assertThat(plans.plan(this.rule, longKey + "-pro")).isEqualTo("pro");
		assertThat(this.calls).hasValue(2);
		assertThat(plans.rememberedKeys()).hasSize(2).allMatch((key) -> key.length() < 200);
	}

	@Test
	void remembersAnAnswerThatNamesNoPlanOfTheRuleAsNone() {
		String huge = "x".repeat(100_000);
		RateLimitPlans plans = new RateLimitPlans((name) -> (rule, key) -> {
			this.calls.incrementAndGet();
			return key.equals("internal") ? RateLimitPlanResolver.UNLIMITED : huge;
		}, Duration.ofMinutes(1), 100, this.now::get);
		assertThat(plans.plan(this.rule, "someone")).isNull();
		assertThat(plans.rememberedPlan(this.rule, "someone")).isNull();
		assertThat(plans.plan(this.rule, "someone")).isNull();
		assertThat(this.calls).hasValue(1);
		assertThat(plans.plan(this.rule, "internal")).isEqualTo(RateLimitPlanResolver.UNLIMITED);
	}

}

package dev.ratelimit.rules.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.rules.CalendarPeriod;
import dev.ratelimit.rules.LimitDefinition;
import dev.ratelimit.rules.MissingKey;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.TestRules;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RuleBudgets}, without Redis: whose budget a request charges under a rule, under which plan's limits, and
 * in which period of a calendar quota.
 */
class RuleBudgetsTests {

	private static final Instant NOW = Instant.parse("2026-12-02T10:15:30Z");

	private final RateLimitRuleFactory factory = TestRules.factory(Algorithm.FIXED_WINDOW);

	private final RateLimitRule byApiKey = this.factory.create("api", List.of("/api/**"), List.of(),
			List.of(new LimitDefinition("", 2L, Duration.ofMinutes(1), null)), null, "header:X-Api-Key",
			MissingKey.CLIENT_ADDRESS, 1, null);

	private final RuleBudgets budgets = new RuleBudgets(RateLimitPlans.NONE, RateLimitOverrides.NONE,
			Clock.fixed(NOW, ZoneOffset.UTC), new EnforcerLogs(FailureMode.FAIL_OPEN));

	@Test
	void chargesTheKeysValueOrElseTheClientAddress() {
		assertThat(this.budgets.of(this.byApiKey, keys("k-1")).id()).isEqualTo("api:header:k-1");
		assertThat(this.budgets.of(this.byApiKey, keys(null)).id()).isEqualTo("api:ip:10.0.0.1");
		assertThat(this.budgets.of(this.byApiKey, keys("k-1")).limits()).containsExactly(
				new RateLimit(2, Duration.ofMinutes(1)));
	}

	@Test
	void anOverriddenKeyIsChargedUnderItsOverridesLimitsInItsOwnBudget() {
		List<RateLimit> overridden = List.of(new RateLimit(5, Duration.ofSeconds(10)), new RateLimit(50, Duration.ofHours(1)));
		RateLimitOverrides overrides = new OnlyKey("api", "k-1", overridden);
		RuleBudgets budgets = new RuleBudgets(RateLimitPlans.NONE, overrides, Clock.fixed(NOW, ZoneOffset.UTC),
				new EnforcerLogs(FailureMode.FAIL_OPEN));
		RuleBudgets.Budget budget = budgets.of(this.byApiKey, keys("k-1"));
		assertThat(budget.id()).isEqualTo("api:header:k-1");
		assertThat(budget.limits()).isEqualTo(overridden);
		assertThat(budget.charged()).isEqualTo(overridden);
		// other keys, and requests without the key charged under their address, keep the rule's limits
		assertThat(budgets.of(this.byApiKey, keys("k-2")).limits()).containsExactly(new RateLimit(2, Duration.ofMinutes(1)));
		assertThat(budgets.of(this.byApiKey, keys(null)).limits()).containsExactly(new RateLimit(2, Duration.ofMinutes(1)));
	}

	@Test
	void anOverrideWinsOverTheKeysPlan() {
		RateLimitRule planned = this.factory.withPlans(this.byApiKey, "header:X-Plan",
				Map.of("pro", List.of(new LimitDefinition("plans.pro.", 100L, Duration.ofMinutes(1), null))),
				(name) -> false);
		List<RateLimit> overridden = List.of(new RateLimit(7, Duration.ofMinutes(1)));
		RuleBudgets budgets = new RuleBudgets(RateLimitPlans.NONE, new OnlyKey("api", "k", overridden),
				Clock.fixed(NOW, ZoneOffset.UTC), new EnforcerLogs(FailureMode.FAIL_OPEN));
		assertThat(budgets.of(planned, keys("k", "pro", true)).limits()).isEqualTo(overridden);
		assertThat(budgets.of(planned, keys("j", "pro", true)).limits()).containsExactly(new RateLimit(100, Duration.ofMinutes(1)));
	}

	@Test
	void aRequestWithoutTheKeySkipsOrIsRefusedAsTheRuleSays() {
		RateLimitRule skipping = this.factory.create("skip", List.of("/api/**"), List.of(),
				List.of(new LimitDefinition("", 2L, Duration.ofMinutes(1), null)), null, "header:X-Api-Key",
				MissingKey.SKIP, 1, null);
		assertThat(this.budgets.of(skipping, keys(null))).isNull();
		assertThat(this.budgets.of(skipping, keys(" "))).isNull();
	}

	@Test
	void aKeyThatCannotBeReadIsChargedUnderTheClientAddress() {
		RateLimitEnforcer.RequestKeys failing = new RateLimitEnforcer.RequestKeys() {

			@Override
			public @Nullable String keyValue(RateLimitRule rule) {
				throw new IllegalArgumentException("malformed query string");
			}

			@Override
			public String clientAddress() {
				return "10.0.0.1";
			}

		};
		assertThat(this.budgets.of(this.byApiKey, failing).id()).isEqualTo("api:ip:10.0.0.1");
	}

	@Test
	void anExemptKeyChargesNothing() {
		RateLimitRule rule = this.byApiKey.toBuilder().allowKeys(Set.of("internal")).build();
		assertThat(this.budgets.of(rule, keys("internal"))).isSameAs(RuleBudgets.EXEMPT);
		assertThat(this.budgets.of(rule, keys("other"))).isNotSameAs(RuleBudgets.EXEMPT);
	}

	@Test
	void aPlanHeaderIsBelievedOnlyFromATrustedProxyAndOnlyForAPlanOfTheRule() {
		RateLimitRule planned = this.factory.withPlans(this.byApiKey, "header:X-Plan",
				Map.of("pro", List.of(new LimitDefinition("plans.pro.", 50L, Duration.ofMinutes(1), null))),
				(name) -> false);
		List<RateLimit> pro = List.of(new RateLimit(50, Duration.ofMinutes(1)));
		List<RateLimit> own = List.of(new RateLimit(2, Duration.ofMinutes(1)));
		assertThat(this.budgets.of(planned, keys("k", "pro", true)).limits()).isEqualTo(pro);
		assertThat(this.budgets.of(planned, keys("k", "pro", false)).limits()).isEqualTo(own);
		assertThat(this.budgets.of(planned, keys("k", RateLimitPlanResolver.UNLIMITED, true)).limits()).isEqualTo(own);
		assertThat(this.budgets.of(planned, keys("k", "gold", true)).limits()).isEqualTo(own);
	}

	@Test
	void aCalendarQuotaChargesThePeriodsBudgetInAWindowThatEndsWithIt() {
		RateLimitRule daily = this.byApiKey.toBuilder().period(CalendarPeriod.DAY, ZoneOffset.UTC).build();
		RuleBudgets.Budget budget = this.budgets.of(daily, keys("k"));
		Duration left = Duration.between(NOW, Instant.parse("2026-12-03T00:00:00Z"));
		assertThat(budget.id()).startsWith("api:header:k:").isNotEqualTo("api:header:k");
		assertThat(budget.limits()).containsExactly(new RateLimit(2, Duration.ofDays(1)));
		assertThat(budget.periodLeft()).isEqualTo(left);
		assertThat(budget.charged()).containsExactly(new RateLimit(2, left));
	}

	private static RateLimitEnforcer.RequestKeys keys(@Nullable String value) {
		return keys(value, null, false);
	}

	private static RateLimitEnforcer.RequestKeys keys(@Nullable String value, @Nullable String planHeader,
			boolean trusted) {
		return new RateLimitEnforcer.RequestKeys() {

			@Override
			public @Nullable String keyValue(RateLimitRule rule) {
				return value;
			}

			@Override
			public String clientAddress() {
				return "10.0.0.1";
			}

			@Override
			public @Nullable String header(String name) {
				return name.equals("X-Plan") ? planHeader : null;
			}

			@Override
			public boolean fromTrustedProxy() {
				return trusted;
			}

		};
	}

	/** Overrides of one key: what an instance's view of the store answers, without a store. */
	private record OnlyKey(String rule, String key, List<RateLimit> limits) implements RateLimitOverrides {

		@Override
		public @Nullable List<RateLimit> limits(String rule, String key) {
			return (rule.equals(this.rule) && key.equals(this.key)) ? this.limits : null;
		}

		@Override
		public RateLimitOverride set(String rule, String key, List<RateLimit> limits, @Nullable Duration duration) {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean remove(String rule, String key) {
			throw new UnsupportedOperationException();
		}

		@Override
		public List<RateLimitOverride> list(String rule) {
			return List.of();
		}

	}

}

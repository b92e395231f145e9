package dev.ratelimit.rules.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.rules.MissingKey;
import dev.ratelimit.rules.CalendarPeriod;
import dev.ratelimit.rules.PlanSource;
import dev.ratelimit.rules.RateLimitRule;

/**
 * The budget a request charges under a rule: whose (its key's value, or its client address), under the
 * limits of its plan, and for a calendar quota in which period. For the {@link RateLimitEnforcer}.
 */
final class RuleBudgets {

	/** The budget of a request a rule exempts: it charges nothing. */
	static final Budget EXEMPT = new Budget("", List.of(), null, List.of(), "");

	private final RateLimitPlans plans;

	private final RateLimitOverrides overrides;

	private final Clock clock;

	private final EnforcerLogs logs;

	RuleBudgets(RateLimitPlans plans, RateLimitOverrides overrides, Clock clock, EnforcerLogs logs) {
		this.plans = plans;
		this.overrides = overrides;
		this.clock = clock;
		this.logs = logs;
	}

	/** Whether the rule's plan comes from a resolver bean that has not answered for this key lately. */
	boolean needsPlanLookUp(RateLimitRule rule, @Nullable String keyValue) {
		return rule.plan() instanceof PlanSource.Bean && keyValue != null && !keyValue.isBlank()
				&& !this.plans.isRemembered(rule, keyValue);
	}

	/** Asks the rule's plan resolver for a key's plan, and remembers the answer for the decision. */
	void lookUpPlan(RateLimitRule rule, String keyValue) {
		this.plans.plan(rule, keyValue);
	}

	/**
	 * Returns the budget a request charges under a rule. A request without the key's value is charged
	 * under its client address, or (as the rule says) skips the rule or is refused: then {@code null}.
	 * One whose key cannot be read (a key resolver that throws, a query string the server cannot parse)
	 * is charged under its client address whatever the rule says, so that no request goes unlimited
	 * for it. A key value the rule exempts ({@code allow-keys}), or whose plan is {@code unlimited},
	 * returns {@link #EXEMPT}. Under a rule with plans, the budget has the limits of the request's plan; a key
	 * given other limits at runtime ({@link RateLimitOverrides}, as this instance last read them) has those, plan or
	 * not.
	 */
	@Nullable Budget of(RateLimitRule rule, RateLimitEnforcer.RequestKeys keys) {
		String value;
		try {
			value = keys.keyValue(rule);
		}
		catch (RuntimeException ex) {
			this.logs.unreadableKey(rule, ex);
			return of(rule, rule.budgetId(null, keys.clientAddress()), rule.limits());
		}
		if (rule.exempts(value)) {
			return EXEMPT;
		}
		if ((value == null || value.isBlank()) && rule.missingKey() != MissingKey.CLIENT_ADDRESS) {
			return null;
		}
		List<RateLimit> overridden = (value == null || value.isBlank()) ? null : this.overrides.limits(rule.name(), value);
		if (overridden != null) {
			return of(rule, rule.budgetId(value, keys.clientAddress()), overridden);
		}
		List<RateLimit> limits = rule.limits();
		if (!rule.plans().isEmpty()) {
			String plan = plan(rule, value, keys);
			if (RateLimitPlanResolver.UNLIMITED.equals(plan)) {
				return EXEMPT;
			}
			limits = rule.limitsOf(plan);
		}
		return of(rule, rule.budgetId(value, keys.clientAddress()), limits);
	}

	/** A calendar quota's budget names its period; a rolling window's is the rule's and the key's. */
	private Budget of(RateLimitRule rule, String id, List<RateLimit> limits) {
		CalendarPeriod.Budget quota = rule.calendarBudget(id, limits, this.clock.instant());
		if (quota == null) {
			return new Budget(id, limits, null, charged(rule, limits), id);
		}
		// the limiter counts in a window that ends with the period (rounded up to the second, so that a list of
		// limits is prepared once a second, not per call), so that its keys expire then; the headers tell the
		// period's own length
		Duration left = Duration.ofSeconds(Math.max(1, (quota.remaining().toMillis() + 999) / 1000));
		List<RateLimit> untilPeriodEnd = quota.limits().stream()
			.map((limit) -> new RateLimit(limit.limit(), left, limit.burst()))
			.toList();
		return new Budget(quota.id(), quota.limits(), quota.remaining(), charged(rule, untilPeriodEnd), id);
	}

	/**
	 * The limits a request is charged under: none for a call of a bean method whose cost expression says it is free,
	 * which then takes only its rule's slot of calls in flight.
	 */
	private static List<RateLimit> charged(RateLimitRule rule, List<RateLimit> limits) {
		return (rule.cost() == 0) ? List.of() : limits;
	}

	/**
	 * Returns the plan of a request under a rule with plans: from a header, on a request that came through a
	 * trusted proxy and naming a plan the rule configures, or from the plan resolver (cached); {@code null} for
	 * the rule's own limits. A header from anyone else, or naming another plan ({@code unlimited} among them),
	 * is not believed: whoever sends it gets the rule's own limits.
	 */
	private @Nullable String plan(RateLimitRule rule, @Nullable String keyValue, RateLimitEnforcer.RequestKeys keys) {
		if (rule.plan() instanceof PlanSource.Header header) {
			if (!keys.fromTrustedProxy()) {
				return null;
			}
			String named = keys.header(header.name());
			return (named != null && rule.plans().containsKey(named)) ? named : null;
		}
		return (keyValue == null || keyValue.isBlank()) ? null : this.plans.plan(rule, keyValue);
	}

	/**
	 * The budget a request charges under a rule: its id, the limits of its plan (as the headers announce them),
	 * for a calendar quota how long its period has still to run (no refusal lasts longer: the next period has a
	 * budget of its own), and the limits the limiter is asked under: the plan's, or for a calendar quota a
	 * window that ends with the period, and the partition it belongs to: the rule's and the key's, the same in
	 * every period of a calendar quota (the {@code pk} of the rate-limit headers derives from it).
	 */
	record Budget(String id, List<RateLimit> limits, @Nullable Duration periodLeft, List<RateLimit> charged,
			String partition) {

		RateLimitDecision capped(RateLimitDecision decision) {
			if (this.periodLeft == null) {
				return decision;
			}
			Duration resetAfter = min(decision.resetAfter(), this.periodLeft);
			return decision.allowed() ? RateLimitDecision.allowed(decision.limit(), decision.remaining(), resetAfter)
					: RateLimitDecision.rejected(decision.limit(), decision.remaining(),
							min(decision.retryAfter(), this.periodLeft), resetAfter);
		}

		private static Duration min(Duration a, Duration b) {
			return (a.compareTo(b) <= 0) ? a : b;
		}

	}

}

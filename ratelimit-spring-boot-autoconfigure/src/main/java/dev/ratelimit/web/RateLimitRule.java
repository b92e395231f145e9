package dev.ratelimit.web;

import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.RateLimit;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * One rule in force: which requests it applies to, the limit, the algorithm, whose budget a request
 * charges and how many permits it takes. Build one with {@link RateLimitRuleFactory}.
 *
 * @param name the rule's name, used in headers and in Redis keys
 * @param paths the path patterns the rule applies to; empty for a rule attached to a handler
 * @param methods the HTTP methods it applies to, empty for all; {@code GET} covers {@code HEAD}, which
 * Spring MVC serves with the same handler
 * @param limits the limits, charged all or nothing; one in the short form
 * @param algorithm the algorithm
 * @param key the key as configured, for example {@code header:X-Api-Key}
 * @param missingKey what the rule does with a request that lacks its key
 * @param cost permits one request takes
 * @param source where the rule is defined, for messages: {@code ratelimit.rules.<name>} or the
 * annotated element
 * @param shadow whether the rule only observes: decisions are taken, counted and sent as headers, but no
 * request is refused
 * @param allowKeys key values exempt from the rule (such as internal API keys): their requests skip it,
 * without a Redis call
 * @param plans the limits of each plan by its name; empty when the rule has one set of limits for all
 * @param plan how a request's plan is found, {@code bean:<name>} or {@code header:<Name>}; {@code null}
 * without plans
 * @param period the calendar period of a quota that resets at local midnight, on Monday or on the first
 * of the month (its limits' windows are then the period's longest); {@code null} for rolling windows
 * @param zone the time zone of the period's boundaries
 * @param excludePaths path patterns inside {@code paths} the rule does not apply to
 * @param condition the name of a condition bean that decides per request whether the rule applies, or
 * {@code null}
 * @param countStatuses the response statuses the rule charges, after the response; {@code null} to charge
 * every request before its handler
 * @param block how long a key the rule refuses stays refused; {@code null} when a refusal lasts as long as
 * the limits say
 */
public record RateLimitRule(String name, List<PathPattern> paths, Set<String> methods, List<RateLimit> limits,
		Algorithm algorithm, String key, MissingKey missingKey, long cost, String source, boolean shadow,
		Set<String> allowKeys, Map<String, List<RateLimit>> plans, @Nullable String plan,
		@Nullable CalendarPeriod period, ZoneId zone, List<PathPattern> excludePaths, @Nullable String condition,
		@Nullable ResponseStatuses countStatuses, @Nullable BlockPolicy block) {

	/**
	 * Returns this rule with paths it skips and a condition bean.
	 * @param excluded path patterns inside the rule's paths that it does not apply to
	 * @param conditionBean the name of the condition bean, or {@code null}
	 * @param statuses the response statuses the rule charges, or {@code null}
	 * @return the rule
	 */
	RateLimitRule withScope(List<PathPattern> excluded, @Nullable String conditionBean,
			@Nullable ResponseStatuses statuses) {
		return new RateLimitRule(this.name, this.paths, this.methods, this.limits, this.algorithm, this.key,
				this.missingKey, this.cost, this.source, this.shadow, this.allowKeys, this.plans, this.plan, this.period,
				this.zone, List.copyOf(excluded), conditionBean, statuses, this.block);
	}

	/**
	 * Returns this rule with refused keys blocked for a while.
	 * @param policy how long blocks last
	 * @return the rule
	 */
	public RateLimitRule withBlock(BlockPolicy policy) {
		return new RateLimitRule(this.name, this.paths, this.methods, this.limits, this.algorithm, this.key,
				this.missingKey, this.cost, this.source, this.shadow, this.allowKeys, this.plans, this.plan, this.period,
				this.zone, this.excludePaths, this.condition, this.countStatuses, policy);
	}

	/**
	 * Returns this rule as a calendar quota.
	 * @param period the period
	 * @param zone the time zone of its boundaries
	 * @return the rule
	 */
	public RateLimitRule withPeriod(CalendarPeriod period, ZoneId zone) {
		return new RateLimitRule(this.name, this.paths, this.methods, this.limits, this.algorithm, this.key,
				this.missingKey, this.cost, this.source, this.shadow, this.allowKeys, this.plans, this.plan, period, zone,
				this.excludePaths, this.condition,
				this.countStatuses, this.block);
	}

	/**
	 * Returns the limits and budget of a calendar quota at an instant: each limit's window is the current
	 * period's length, and the budget id names the period, so that the count starts afresh at its end.
	 * @param budgetId the budget id, as {@link #budgetId} returns it
	 * @param limits the limits of the request's plan
	 * @param now the instant
	 * @return the quota's budget, or {@code null} for a rule of rolling windows
	 */
	public @Nullable CalendarBudget calendarBudget(String budgetId, List<RateLimit> limits, java.time.Instant now) {
		if (this.period == null) {
			return null;
		}
		CalendarPeriod.Span span = this.period.spanOf(now, this.zone);
		List<RateLimit> spanLimits = limits.stream()
			.map((limit) -> new RateLimit(limit.limit(), span.length(), limit.burst()))
			.toList();
		return new CalendarBudget(budgetId + ":" + span.label(), spanLimits, span.remaining());
	}

	/**
	 * The budget of a calendar quota in one period.
	 *
	 * @param id the budget id, naming the period
	 * @param limits the limits, their windows the period's length
	 * @param remaining how long the period has still to run: no refusal lasts longer
	 */
	public record CalendarBudget(String id, List<RateLimit> limits, java.time.Duration remaining) {
	}

	/**
	 * Returns this rule with key values exempt from it.
	 * @param keys the exempt key values
	 * @return the rule
	 */
	public RateLimitRule withAllowKeys(Set<String> keys) {
		return new RateLimitRule(this.name, this.paths, this.methods, this.limits, this.algorithm, this.key,
				this.missingKey, this.cost, this.source, this.shadow, Set.copyOf(keys), this.plans, this.plan, this.period,
				this.zone, this.excludePaths, this.condition,
				this.countStatuses, this.block);
	}

	/**
	 * Returns this rule with plans; see {@link RateLimitRuleFactory#withPlans}, which checks them.
	 * @param plan how a request's plan is found
	 * @param plans the limits of each plan
	 * @return the rule
	 */
	RateLimitRule withPlans(String plan, Map<String, List<RateLimit>> plans) {
		return new RateLimitRule(this.name, this.paths, this.methods, this.limits, this.algorithm, this.key,
				this.missingKey, this.cost, this.source, this.shadow, this.allowKeys, Map.copyOf(plans), plan, this.period,
				this.zone, this.excludePaths, this.condition,
				this.countStatuses, this.block);
	}

	/**
	 * Returns the limits of a plan: the plan's own, or the rule's for no plan or an unknown one.
	 * @param planName the plan's name, or {@code null}
	 * @return the limits
	 */
	public List<RateLimit> limitsOf(@Nullable String planName) {
		List<RateLimit> planLimits = (planName != null) ? this.plans.get(planName) : null;
		return (planLimits != null) ? planLimits : this.limits;
	}

	/**
	 * Returns how a request's plan is found: {@code bean} or {@code header}.
	 * @return the kind, empty without plans
	 */
	public String planKind() {
		if (this.plan == null) {
			return "";
		}
		int colon = this.plan.indexOf(':');
		return (colon < 0) ? this.plan : this.plan.substring(0, colon);
	}

	/**
	 * Returns the plan resolver bean's or the header's name.
	 * @return the name, empty without plans
	 */
	public String planArgument() {
		if (this.plan == null) {
			return "";
		}
		int colon = this.plan.indexOf(':');
		return (colon < 0) ? "" : this.plan.substring(colon + 1).strip();
	}

	/**
	 * Returns whether a key value is exempt from the rule.
	 * @param keyValue the value the request's key resolves to, or {@code null}
	 * @return {@code true} when the rule lists it among its {@code allow-keys}
	 */
	public boolean exempts(@Nullable String keyValue) {
		return keyValue != null && !this.allowKeys.isEmpty() && this.allowKeys.contains(keyValue);
	}

	/**
	 * Returns whether the rule applies to a request of this path and method.
	 * @param path the path within the application
	 * @param method the HTTP method
	 * @return {@code true} when a pattern matches and the method is among the rule's
	 */
	public boolean matches(PathContainer path, String method) {
		if (!this.methods.isEmpty() && !this.methods.contains(method)
				&& !("HEAD".equals(method) && this.methods.contains("GET"))) {
			return false;
		}
		for (PathPattern excluded : this.excludePaths) {
			if (excluded.matches(path)) {
				return false;
			}
		}
		for (PathPattern pattern : this.paths) {
			if (pattern.matches(path)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Returns the policy name of one of the rule's limits in headers and problem responses: the rule's
	 * name when it has one limit, else the name and the window, such as {@code search-1s}.
	 * @param index the limit's index
	 * @return the policy name
	 */
	public String policyName(int index) {
		return policyName(index, this.limits);
	}

	/**
	 * Returns the policy name of one of the limits of a plan of the rule, named as the rule's own.
	 * @param index the limit's index
	 * @param planLimits the plan's limits
	 * @return the policy name
	 */
	public String policyName(int index, List<RateLimit> planLimits) {
		return (planLimits.size() == 1) ? this.name : this.name + "-" + planLimits.get(index).windowLabel();
	}

	/**
	 * Describes the rule in one line, for the startup log.
	 * @return the description
	 */
	public String describe() {
		StringBuilder text = new StringBuilder("Rate limit '").append(this.name).append("': ");
		for (int i = 0; i < this.limits.size(); i++) {
			RateLimit limit = this.limits.get(i);
			text.append((i > 0) ? " and " : "").append(limit.limit()).append(" per ")
				.append((this.period != null) ? this.period.name().toLowerCase(java.util.Locale.ROOT) + " (" + this.zone + ")"
						: limit.windowLabel());
			if (limit.burst() != limit.limit()) {
				text.append(" (burst ").append(limit.burst()).append(')');
			}
		}
		text.append(", ").append(this.algorithm.id()).append(", on ");
		if (this.paths.isEmpty()) {
			text.append(this.source);
		}
		else {
			text.append(this.paths.stream().map(PathPattern::getPatternString).toList())
				.append(this.methods.isEmpty() ? " (all methods)" : " " + this.methods.stream().sorted().toList());
		}
		text.append(", key ").append(this.key).append(", cost ").append(this.cost);
		if (this.block != null) {
			text.append(", refused keys blocked for ").append(RateLimit.label(this.block.blockFor()));
			if (this.block.multiplier() > 1) {
				text.append(" (x").append(this.block.multiplier()).append(" for repeat offenders, up to ")
					.append(RateLimit.label(this.block.max())).append(')');
			}
		}
		return this.shadow ? text.append(", shadow mode (observes, never refuses)").toString() : text.toString();
	}

	/**
	 * Returns the kind of key, the part of {@link #key()} before any {@code :}.
	 * @return {@code ip}, {@code header}, {@code param}, {@code principal} or {@code bean}; {@code resolver} for a
	 * rule whose key a resolver of its own finds (a gateway route's)
	 */
	public String keyKind() {
		int colon = this.key.indexOf(':');
		return (colon < 0) ? this.key : this.key.substring(0, colon);
	}

	/**
	 * Returns whether the rule charges the authenticated user, so that it applies only after
	 * authentication.
	 * @return {@code true} for a rule keyed by {@code principal}
	 */
	public boolean needsAuthentication() {
		return this.key.equals("principal");
	}

	/**
	 * Returns what the key names, the part of {@link #key()} after the {@code :}: a header, a parameter
	 * or a bean.
	 * @return the name, empty for {@code ip} and {@code principal}
	 */
	public String keyArgument() {
		int colon = this.key.indexOf(':');
		return (colon < 0) ? "" : this.key.substring(colon + 1).strip();
	}

	/**
	 * Returns the budget id of a request under this rule: {@code <rule>:<kind>:<value>}, or
	 * {@code <rule>:ip:<address>} when the key has no value for the request.
	 * @param keyValue the value the key resolver found, or {@code null}
	 * @param clientAddress the request's client address
	 * @return the id handed to the limiter
	 */
	public String budgetId(@Nullable String keyValue, String clientAddress) {
		if (keyValue == null || keyValue.isBlank()) {
			return this.name + ":ip:" + clientAddress;
		}
		return this.name + ":" + keyKind() + ":" + keyValue;
	}

}

package dev.ratelimit.rules;

import java.time.ZoneId;
import java.time.ZoneOffset;
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
 * charges and how many permits it takes: immutable, its options typed values read once from properties,
 * annotations or routes. Build one with {@link RateLimitRuleFactory}, which checks it; {@link #builder} and
 * {@link #toBuilder()} hold its options, so that a new one is a component, a builder setter and the code that
 * reads it.
 *
 * @param name the rule's name, used in headers and in Redis keys
 * @param paths the path patterns the rule applies to; empty for a rule attached to a handler
 * @param methods the HTTP methods it applies to, empty for all; {@code GET} covers {@code HEAD}, which
 * Spring MVC serves with the same handler
 * @param limits the limits, charged all or nothing; one in the short form
 * @param algorithm the algorithm
 * @param key whose budget a request charges
 * @param missingKey what the rule does with a request that lacks its key
 * @param cost permits one request takes
 * @param source where the rule is defined, for messages: {@code ratelimit.rules.<name>} or the
 * annotated element
 * @param shadow whether the rule only observes: decisions are taken, counted and sent as headers, but no
 * request is refused
 * @param allowKeys key values exempt from the rule (such as internal API keys): their requests skip it,
 * without a Redis call
 * @param plans the limits of each plan by its name; empty when the rule has one set of limits for all
 * @param plan where a request's plan comes from; {@code null} without plans
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
 * @param concurrency how many requests per key may be in flight at once ({@link RateLimit#limit()}) and the lease
 * a request's slot is held under ({@link RateLimit#window()}), renewed while it runs; {@code null} for no such limit.
 * A rule with it may have no rate limits ({@code limits} empty)
 * @param enforce whether the rule refuses requests over its limits; {@code false} for a soft rule: decided, charged,
 * headers sent, never refused, and its decisions told to the handler ({@code RateLimitContext})
 * @param costFrom where the actual cost of a request is read once its work is done: its {@code cost} is then a
 * reservation, settled with the actual cost; {@code null} when the cost is known before
 * @param chargePerMessage whether each message a client sends on a streaming gRPC call the rule matches is charged,
 * the call's own decision paying for its first; {@code false} to charge a call once, when it starts, whatever it
 * carries. A request of the other entry points is one message
 * @param prefetch how many permits of a key each instance takes from Redis at once, to spend them in its memory
 * (never more than the limits across every instance); 0 to decide every request in Redis
 * @param waiting how a request the rule would refuse waits for a permit instead ({@code max-wait}), up to a bound;
 * {@code null} to refuse at once
 * @since 0.1.0
 */
public record RateLimitRule(String name, List<PathPattern> paths, Set<String> methods, List<RateLimit> limits,
		Algorithm algorithm, RuleKey key, MissingKey missingKey, long cost, String source, boolean shadow,
		Set<String> allowKeys, Map<String, List<RateLimit>> plans, @Nullable PlanSource plan,
		@Nullable CalendarPeriod period, ZoneId zone, List<PathPattern> excludePaths, @Nullable String condition,
		@Nullable ResponseStatuses countStatuses, @Nullable BlockPolicy block, @Nullable RateLimit concurrency,
		boolean enforce, @Nullable ResponseCost costFrom, boolean chargePerMessage, long prefetch,
		@Nullable WaitPolicy waiting) {

	/**
	 * Returns a builder that starts from this rule, to derive another.
	 * @return the builder
	 */
	public Builder toBuilder() {
		return new Builder(this);
	}

	/**
	 * Returns a builder of a rule of the options every rule has; the others start at their defaults (every
	 * path and method, the client address charged when the key is missing, a cost of 1, enforcing, no plans, no
	 * calendar period, no condition, charged before the handler, no block). {@link RateLimitRuleFactory} checks
	 * what it builds.
	 * @param name the rule's name
	 * @param limits the limits
	 * @param algorithm the algorithm
	 * @param key whose budget a request charges
	 * @param source where the rule is defined, for messages
	 * @return the builder
	 */
	public static Builder builder(String name, List<RateLimit> limits, Algorithm algorithm, RuleKey key, String source) {
		return new Builder(name, limits, algorithm, key, source);
	}

	/**
	 * Returns the limits and budget of a calendar quota at an instant: each limit's window is the current
	 * period's length, and the budget id names the period, so that the count starts afresh at its end.
	 * @param budgetId the budget id, as {@link #budgetId} returns it
	 * @param limits the limits of the request's plan
	 * @param now the instant
	 * @return the quota's budget, or {@code null} for a rule of rolling windows
	 */
	public CalendarPeriod.@Nullable Budget calendarBudget(String budgetId, List<RateLimit> limits, java.time.Instant now) {
		if (this.period == null) {
			return null;
		}
		CalendarPeriod.Span span = this.period.spanOf(now, this.zone);
		List<RateLimit> spanLimits = limits.stream()
			.map((limit) -> new RateLimit(limit.limit(), span.length(), limit.burst()))
			.toList();
		return new CalendarPeriod.Budget(budgetId + ":" + span.label(), spanLimits, span.remaining());
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
	 * Returns whether the rule lets every request through: in shadow mode, or soft ({@code enforce=false}).
	 * @return {@code true} when it never refuses
	 */
	public boolean neverRefuses() {
		return this.shadow || !this.enforce;
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
		return RuleDescription.of(this);
	}

	/**
	 * Describes each of the rule's policies in words, as an API's description tells its clients: its limits per
	 * window and of requests in flight, by the policy names the rate-limit headers and problem responses use, such as
	 * {@code api} to {@code 100 per minute per client address}.
	 * @return the descriptions by policy name, in the rule's order
	 */
	public Map<String, String> describePolicies() {
		return RuleDescription.policies(this);
	}

	/**
	 * Returns whether the rule charges the authenticated user, so that it applies only after
	 * authentication.
	 * @return {@code true} for a rule keyed by {@code principal}
	 */
	public boolean needsAuthentication() {
		return this.key instanceof RuleKey.Principal;
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
		return this.name + ":" + this.key.kind() + ":" + keyValue;
	}

	/**
	 * Derives a rule from another: every part as the rule had it unless set here.
	 */
	public static final class Builder {

		private final String name;

		private final List<RateLimit> limits;

		private final Algorithm algorithm;

		private final RuleKey key;

		private final String source;

		private List<PathPattern> paths = List.of();

		private Set<String> methods = Set.of();

		private MissingKey missingKey = MissingKey.CLIENT_ADDRESS;

		private long cost = 1;

		private boolean shadow;

		private Set<String> allowKeys = Set.of();

		private Map<String, List<RateLimit>> plans = Map.of();

		private @Nullable PlanSource plan;

		private @Nullable CalendarPeriod period;

		private ZoneId zone = ZoneOffset.UTC;

		private List<PathPattern> excludePaths = List.of();

		private @Nullable String condition;

		private @Nullable ResponseStatuses countStatuses;

		private @Nullable BlockPolicy block;

		private @Nullable RateLimit concurrency;

		private boolean enforce = true;

		private @Nullable ResponseCost costFrom;

		private boolean chargePerMessage;

		private long prefetch;

		private @Nullable WaitPolicy waiting;

		private Builder(String name, List<RateLimit> limits, Algorithm algorithm, RuleKey key, String source) {
			this.name = name;
			this.limits = List.copyOf(limits);
			this.algorithm = algorithm;
			this.key = key;
			this.source = source;
		}

		private Builder(RateLimitRule from) {
			this(from.name, from.limits, from.algorithm, from.key, from.source);
			this.paths = from.paths;
			this.methods = from.methods;
			this.missingKey = from.missingKey;
			this.cost = from.cost;
			this.shadow = from.shadow;
			this.allowKeys = from.allowKeys;
			this.plans = from.plans;
			this.plan = from.plan;
			this.period = from.period;
			this.zone = from.zone;
			this.excludePaths = from.excludePaths;
			this.condition = from.condition;
			this.countStatuses = from.countStatuses;
			this.block = from.block;
			this.concurrency = from.concurrency;
			this.enforce = from.enforce;
			this.costFrom = from.costFrom;
			this.chargePerMessage = from.chargePerMessage;
			this.prefetch = from.prefetch;
			this.waiting = from.waiting;
		}

		/**
		 * Sets the path patterns the rule applies to and the HTTP methods, empty for all.
		 * @param patterns the patterns
		 * @param httpMethods the methods, upper case
		 * @return this builder
		 */
		public Builder paths(List<PathPattern> patterns, Set<String> httpMethods) {
			this.paths = List.copyOf(patterns);
			this.methods = Set.copyOf(httpMethods);
			return this;
		}

		/**
		 * Sets what the rule does with a request that lacks its key; by default it charges the client address.
		 * @param whenMissing what it does
		 * @return this builder
		 */
		public Builder missingKey(MissingKey whenMissing) {
			this.missingKey = whenMissing;
			return this;
		}

		/**
		 * Sets the permits one request takes, 1 by default; the factory checks it against the limits.
		 * @param permits the permits
		 * @return this builder
		 */
		public Builder cost(long permits) {
			this.cost = permits;
			return this;
		}

		/**
		 * Sets whether the rule only observes.
		 * @param observeOnly whether it refuses no request
		 * @return this builder
		 */
		public Builder shadow(boolean observeOnly) {
			this.shadow = observeOnly;
			return this;
		}

		/**
		 * Sets the key values exempt from the rule.
		 * @param keys the values
		 * @return this builder
		 */
		public Builder allowKeys(Set<String> keys) {
			this.allowKeys = Set.copyOf(keys);
			return this;
		}

		/**
		 * Sets the rule's plans; {@link RateLimitRuleFactory#withPlans} checks them.
		 * @param source where a request's plan comes from
		 * @param limits the limits of each plan
		 * @return this builder
		 */
		public Builder plans(PlanSource source, Map<String, List<RateLimit>> limits) {
			this.plan = source;
			this.plans = Map.copyOf(limits);
			return this;
		}

		/**
		 * Makes the rule a calendar quota.
		 * @param calendarPeriod the period
		 * @param timeZone the time zone of its boundaries
		 * @return this builder
		 */
		public Builder period(CalendarPeriod calendarPeriod, ZoneId timeZone) {
			this.period = calendarPeriod;
			this.zone = timeZone;
			return this;
		}

		/**
		 * Sets the path patterns inside the rule's paths that it does not apply to.
		 * @param excluded the patterns
		 * @return this builder
		 */
		public Builder excludePaths(List<PathPattern> excluded) {
			this.excludePaths = List.copyOf(excluded);
			return this;
		}

		/**
		 * Sets the condition bean that decides per request whether the rule applies.
		 * @param conditionBean the bean's name, or {@code null} for none
		 * @return this builder
		 */
		public Builder condition(@Nullable String conditionBean) {
			this.condition = conditionBean;
			return this;
		}

		/**
		 * Sets the response statuses the rule charges, after the response.
		 * @param statuses the statuses, or {@code null} to charge every request before its handler
		 * @return this builder
		 */
		public Builder countStatuses(@Nullable ResponseStatuses statuses) {
			this.countStatuses = statuses;
			return this;
		}

		/**
		 * Sets how long a key the rule refuses stays refused.
		 * @param policy the policy, or {@code null} for no block
		 * @return this builder
		 */
		public Builder block(@Nullable BlockPolicy policy) {
			this.block = policy;
			return this;
		}

		/**
		 * Sets how many requests per key may be in flight at once, and the lease their slots are held under;
		 * {@link RateLimitRuleFactory#withConcurrency} checks it.
		 * @param slots the slots ({@link RateLimit#limit()}) and the lease ({@link RateLimit#window()}), or
		 * {@code null} for no such limit
		 * @return this builder
		 */
		public Builder concurrency(@Nullable RateLimit slots) {
			this.concurrency = slots;
			return this;
		}

		/**
		 * Sets whether the rule refuses requests over its limits; {@code false} makes it soft.
		 * @param refuses whether it refuses them, {@code true} by default
		 * @return this builder
		 */
		public Builder enforce(boolean refuses) {
			this.enforce = refuses;
			return this;
		}

		/**
		 * Sets where the actual cost of a request is read once its work is done; {@link RateLimitRuleFactory#withCostFrom}
		 * checks it.
		 * @param source the source, or {@code null} when the cost is known before
		 * @return this builder
		 */
		public Builder costFrom(@Nullable ResponseCost source) {
			this.costFrom = source;
			return this;
		}

		/**
		 * Sets whether each message a client sends on a streaming gRPC call is charged, rather than the call once.
		 * @param perMessage whether it is, {@code false} by default
		 * @return this builder
		 */
		public Builder chargePerMessage(boolean perMessage) {
			this.chargePerMessage = perMessage;
			return this;
		}

		/**
		 * Sets how many permits of a key each instance takes from Redis at once, to spend them in its memory.
		 * @param permits the batch, at least 1 (at most the rule's smallest limit, which {@link #build()} checks)
		 * @return this builder
		 * @throws InvalidRateLimitRuleException naming {@code prefetch} when it is below 1
		 */
		public Builder prefetch(long permits) {
			if (permits < 1) {
				throw new InvalidRateLimitRuleException(this.name, "prefetch", permits,
						"it is how many permits of a key an instance takes at once, at least 1 (2 or more to save Redis "
								+ "calls); leave it unset to decide every request in Redis");
			}
			this.prefetch = permits;
			return this;
		}

		/**
		 * Sets how a request the rule would refuse waits for a permit instead, up to a bound.
		 * @param policy the bound and how many may wait at once, or {@code null} to refuse at once
		 * @return this builder
		 */
		public Builder waiting(@Nullable WaitPolicy policy) {
			this.waiting = policy;
			return this;
		}

		/**
		 * Builds the rule.
		 * @return the rule
		 * @throws InvalidRateLimitRuleException naming {@code missing-key} when a soft rule would refuse requests
		 * without its key, {@code prefetch} when it is given with an option it cannot work with
		 */
		public RateLimitRule build() {
			if (this.prefetch > 0) {
				checkPrefetch();
			}
			if (!this.enforce && this.missingKey == MissingKey.REJECT) {
				// a soft rule never refuses, whatever the cause: the combination would refuse with 400
				throw new InvalidRateLimitRuleException(this.name, "missing-key", "reject",
						"a soft rule (enforce false) never refuses a request, and reject refuses one without the key "
								+ "(400); use client-address or skip, or enforce the rule");
			}
			return new RateLimitRule(this.name, this.paths, this.methods, this.limits, this.algorithm, this.key,
					this.missingKey, this.cost, this.source, this.shadow, this.allowKeys, this.plans, this.plan, this.period,
					this.zone, this.excludePaths, this.condition, this.countStatuses, this.block, this.concurrency,
					this.enforce, this.costFrom, this.chargePerMessage, this.prefetch, this.waiting);
		}

		/**
		 * Checks that the permits an instance takes at once can be spent in its memory under this rule.
		 */
		private void checkPrefetch() {
			String reason = null;
			if (this.algorithm == Algorithm.SLIDING_WINDOW_LOG) {
				reason = "the sliding-window-log algorithm records the time of every permit in Redis, so an instance "
						+ "cannot take them ahead; use sliding-window-counter (or fixed-window, token-bucket, gcra), or "
						+ "remove prefetch";
			}
			else if (this.countStatuses != null || this.costFrom != null) {
				reason = "a rule that settles its charges after the response (" + ((this.countStatuses != null)
						? "count-statuses" : "cost-from") + ") gives permits back to Redis one request at a time; "
						+ "remove prefetch, or put the prefetching limit on a rule of its own";
			}
			else if (this.concurrency != null) {
				reason = "slots of work in flight are held in Redis one request at a time (concurrency); remove "
						+ "prefetch, or put the concurrency on a rule of its own";
			}
			else if (this.block != null) {
				reason = "a block starts when Redis refuses a request, and permits spent in an instance's memory never "
						+ "reach Redis one by one (block-for); remove prefetch or the block";
			}
			else {
				long smallest = smallestLimit(this.limits);
				for (List<RateLimit> planLimits : this.plans.values()) {
					smallest = Math.min(smallest, smallestLimit(planLimits));
				}
				if (this.prefetch > smallest) {
					reason = "an instance may take at most the rule's smallest limit" + (this.algorithm.acceptsBurst()
							? " (or burst)" : "") + " at once, " + smallest + "; a batch near a tenth of it keeps early "
									+ "refusals small";
				}
			}
			if (reason != null) {
				throw new InvalidRateLimitRuleException(this.name, "prefetch", this.prefetch, reason);
			}
		}

		private static long smallestLimit(List<RateLimit> limits) {
			long smallest = Long.MAX_VALUE;
			for (RateLimit limit : limits) {
				smallest = Math.min(smallest, Math.min(limit.limit(), limit.burst()));
			}
			return smallest;
		}

	}

}

package dev.ratelimit.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.actuate.RateLimitDescriptors.BlockDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.KeyDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.KeyLimitDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.LimitDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.OverrideDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.OverrideRemovedDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.OverridesDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.ReloadDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.ResetDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.RuleDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.RulesDescriptor;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.ForwardedHeader;
import dev.ratelimit.rules.CalendarPeriod;
import dev.ratelimit.rules.PlanSource;
import dev.ratelimit.rules.flow.RateLimitPlanCache;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.rules.internal.RateLimitEngine;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;

/**
 * The {@code ratelimit} actuator endpoint: the rules in force; one key's state under a rule, read
 * without charging it; and a reset of one key, for support staff unblocking a customer. The key is the
 * value the rule's key resolves to: a client address for {@code ip}, the header's value for
 * {@code header:<Name>}, and so on. Reads the engine's {@link RateLimitRuleRegistry}, whichever entry point applies
 * the rules. Keys given other limits at runtime ({@code /actuator/ratelimit/{rule}/{key}/override}) are the
 * {@link RateLimitOverrides}' (a key whose last path segment is {@code override} is therefore read, reset and blocked
 * through the query form, {@code ?key=}, for what has one).
 *
 * @since 0.1.0
 */
@Endpoint(id = "ratelimit")
public class RateLimitEndpoint {

	private final RateLimitRuleRegistry rules;

	private final EndpointKeys keys;

	private final @Nullable RateLimitPlanCache plans;

	private final @Nullable Supplier<List<String>> reload;

	private final FailureMode failureMode;

	private final @Nullable CircuitBreaker circuitBreaker;

	private final RateLimitOverrides overrides;

	private RateLimitEndpoint(Builder builder) {
		this.overrides = builder.overrides;
		this.rules = builder.rules;
		this.failureMode = builder.failureMode;
		this.circuitBreaker = builder.circuitBreaker;
		this.plans = builder.plans;
		this.reload = builder.reload;
		this.keys = new EndpointKeys(builder.rules, builder.addresses, builder.reactive);
	}

	/**
	 * Starts an endpoint over the rules in force; the {@link RateLimitEndpointConfiguration} beside it is its one
	 * caller.
	 * @param rules the rules and their limiters
	 * @return the builder
	 */
	static Builder builder(RateLimitRuleRegistry rules) {
		return new Builder(rules);
	}

	/**
	 * Returns the rules in force and how failures are handled.
	 * @return the description
	 */
	@ReadOperation
	public RulesDescriptor rules() {
		List<RuleDescriptor> rules = new ArrayList<>();
		for (RateLimitRule rule : this.rules.all()) {
			List<LimitDescriptor> limits = new ArrayList<>();
			for (int i = 0; i < rule.limits().size(); i++) {
				RateLimit limit = rule.limits().get(i);
				limits.add(new LimitDescriptor(rule.policyName(i), limit.limit(), limit.windowLabel(), limit.burst()));
			}
			rules.add(new RuleDescriptor(rule.name(), rule.source(),
					rule.paths().stream().map((path) -> path.getPatternString()).toList(),
					rule.methods().stream().sorted().toList(), rule.algorithm().id(), rule.key().spelling(), rule.cost(),
					rule.shadow(), limits, rule.allowKeys().size()));
		}
		CircuitBreaker.State state = (this.circuitBreaker != null) ? this.circuitBreaker.state() : null;
		String redis = (state == null) ? "unknown" : (state == CircuitBreaker.State.CLOSED) ? "up" : "down";
		return new RulesDescriptor(this.failureMode.id(), redis, (state != null) ? state.id() : "unknown", rules,
				this.rules.allowedAddresses().stream().map(Object::toString).toList(),
				this.rules.deniedAddresses().stream().map(Object::toString).toList());
	}

	/**
	 * Reads the rules from properties again ({@code POST /actuator/ratelimit/reload}) and puts them in
	 * force for new requests; invalid rules are refused (with the message of a startup error) and the
	 * rules in force stay. Over HTTP, {@link RateLimitEndpointWebExtension} answers 400 and 404 for them.
	 * @param action {@code reload}
	 * @return the rules now in force, or the error and the rules that stay; {@code null} for another
	 * action or when the rules cannot be reloaded
	 */
	@WriteOperation
	public @Nullable ReloadDescriptor reload(@Selector String action) {
		if (!action.equals("reload") || this.reload == null) {
			return null;
		}
		try {
			return new ReloadDescriptor(true, this.reload.get(), null);
		}
		catch (RuntimeException ex) {
			return new ReloadDescriptor(false, this.rules.pathRules().stream().map(RateLimitRule::name).toList(),
					ex.getMessage());
		}
	}

	/**
	 * Returns a key's state under a rule without charging it.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @param clientAddress whether the key is a client address whose budget a {@code header:},
	 * {@code param:}, {@code principal} or {@code bean:} rule charges requests without the key's value
	 * to
	 * @return the state per limit, or {@code null} (404) when no rule has that name
	 */
	@ReadOperation
	public @Nullable KeyDescriptor key(@Selector String rule, @Selector(match = Match.ALL_REMAINING) String[] key,
			@Nullable Boolean clientAddress) {
		return state(rule, this.keys.keyOf(rule, key), clientAddress);
	}

	/**
	 * Answers {@code GET /actuator/ratelimit/{rule}}: the rule's overrides, or with {@code ?key=} a key's state
	 * ({@link #state}).
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to, or {@code null} for the rule's overrides
	 * @param clientAddress whether the key is a client address a rule with another key charges requests
	 * without the key's value to
	 * @return the overrides or the key's state, or {@code null} (404) when no rule has that name
	 */
	@ReadOperation
	public @Nullable OperationResponseBody rule(@Selector String rule, @Nullable String key,
			@Nullable Boolean clientAddress) {
		return (key != null) ? state(rule, key, clientAddress) : overrides(rule);
	}

	/**
	 * Returns the overrides of a rule in force, as Redis has them now.
	 * @param rule the rule's name
	 * @return the overrides, or {@code null} when no rule has that name
	 */
	public @Nullable OverridesDescriptor overrides(String rule) {
		RateLimitRule found = this.rules.find(rule);
		if (found == null) {
			return null;
		}
		return new OverridesDescriptor(rule, this.overrides.list(rule).stream()
			.map((override) -> describe(found, override))
			.toList());
	}

	/**
	 * Returns a key's state under a rule without charging it, the key given as a query parameter: any
	 * key, empty path segments and all ({@code ?key=team//alpha}).
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @param clientAddress whether the key is a client address a rule with another key charges requests
	 * without the key's value to
	 * @return the state per limit, or {@code null} (404) when no rule has that name
	 */
	public @Nullable KeyDescriptor state(@Selector String rule, String key, @Nullable Boolean clientAddress) {
		EndpointKeys.Target target = this.keys.target(rule, key, Boolean.TRUE.equals(clientAddress));
		if (target == null) {
			return null;
		}
		RateLimitRule found = target.rule();
		// the limits of the plan this instance remembers for the key: reading a key never makes the plan resolver
		// look it up (a caller could have it look up any key), and the plan's name is not shown; a plan from a
		// header is the request's, unknown here
		String plan = (found.plan() instanceof PlanSource.Bean && this.plans != null
				&& !Boolean.TRUE.equals(clientAddress)) ? this.plans.rememberedPlan(found, target.key()) : null;
		List<RateLimit> overridden = this.overrides.limits(found.name(), target.key());
		List<RateLimit> planLimits = (overridden != null) ? overridden : found.limitsOf(plan);
		String budgetId = target.budgetId();
		CalendarPeriod.Budget quota = found.calendarBudget(budgetId, planLimits, Instant.now());
		if (quota != null) {
			// the current period's budget
			budgetId = quota.id();
			planLimits = quota.limits();
		}
		RateLimiter limiter = this.rules.limiter(found);
		List<RateLimitDecision> decisions = limiter.inspect(budgetId, planLimits);
		List<KeyLimitDescriptor> limits = new ArrayList<>();
		for (int i = 0; i < decisions.size(); i++) {
			RateLimitDecision decision = decisions.get(i);
			limits.add(new KeyLimitDescriptor(found.policyName(i, planLimits), decision.limit(), decision.remaining(),
					decision.allowed(), decision.retryAfterSeconds(), decision.resetAfterSeconds()));
		}
		if (!(limiter instanceof BlockingRateLimiter blocking)) {
			return new KeyDescriptor(found.name(), target.key(), limits, null, null, null);
		}
		Duration blocked = blocking.blockedFor(budgetId);
		return new KeyDescriptor(found.name(), target.key(), limits, !blocked.isZero(), seconds(blocked),
				blocked.isZero() ? null : Instant.now().plus(blocked).toString());
	}

	/**
	 * Answers {@code POST /actuator/ratelimit/{rule}/{key}}: a block ({@link #block}), or for a path that ends with
	 * {@code /override} the key's override ({@link #override}).
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to, then {@code override} for an override
	 * @param duration how long, such as {@code 30m}; required for a block, without it an override lasts until removed
	 * @param limit an override's permits per window, with {@code window}
	 * @param window an override's window, such as {@code 1m}
	 * @param burst an override's burst, for the token bucket and GCRA
	 * @param limits an override's limits, each with {@code limit}, {@code window} and optionally {@code burst}, instead
	 * of {@code limit} and {@code window}
	 * @param clientAddress whether the key is a client address a rule with another key charges requests
	 * without the key's value to
	 * @return the block or the override, with the error when it could not be made; {@code null} when no rule has that
	 * name
	 */
	@WriteOperation
	public @Nullable OperationResponseBody write(@Selector String rule,
			@Selector(match = Match.ALL_REMAINING) String[] key, @Nullable String duration, @Nullable String limit,
			@Nullable String window, @Nullable String burst, @Nullable List<Object> limits,
			@Nullable Boolean clientAddress) {
		String overridden = overriddenKey(rule, key);
		if (overridden != null) {
			return override(rule, overridden, duration, limit, window, burst, limits);
		}
		if (duration == null) {
			EndpointKeys.Target target = this.keys.target(rule, this.keys.keyOf(rule, key),
					Boolean.TRUE.equals(clientAddress));
			return (target != null) ? badBlock(target, "duration is missing; give one such as {\"duration\": \"30m\"}, "
					+ "or end the path with /override to give the key other limits") : null;
		}
		return block(rule, key, duration, clientAddress);
	}

	/**
	 * Gives a key, or every key matching a pattern ({@code partner-*}), other limits under a rule, on every instance
	 * (from its next read of the overrides, within {@code ratelimit.overrides.refresh-interval}) and at once on this
	 * one.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to, or a pattern in which {@code *} stands for any characters
	 * @param duration how long, such as {@code 2h}, or {@code null} until removed
	 * @param limit permits per window, with {@code window}
	 * @param window the window, such as {@code 1m}
	 * @param burst the burst, for the token bucket and GCRA
	 * @param limits the limits, instead of {@code limit} and {@code window}
	 * @return the override, or its error (over HTTP, {@link RateLimitEndpointWebExtension} answers 400); {@code null}
	 * when no rule has that name
	 */
	public @Nullable OverrideDescriptor override(String rule, String key, @Nullable String duration,
			@Nullable String limit, @Nullable String window, @Nullable String burst, @Nullable List<?> limits) {
		RateLimitRule found = this.rules.find(rule);
		if (found == null) {
			return null;
		}
		String value = overrideKey(rule, key);
		if (this.overrides == RateLimitOverrides.NONE) {
			return badOverride(rule, value, "overrides are disabled; set ratelimit.overrides.enabled=true (the default)");
		}
		RateLimitOverride set;
		try {
			set = this.overrides.set(rule, value, OverrideBodies.limits(found, limit, window, burst, limits),
					OverrideBodies.duration(duration));
		}
		catch (IllegalArgumentException ex) {
			return badOverride(rule, value, String.valueOf(ex.getMessage()));
		}
		return describe(found, set);
	}

	/**
	 * Removes the override of a key, or of a pattern, under a rule, on every instance (from its next read of the
	 * overrides) and at once on this one.
	 * @param rule the rule's name
	 * @param key the key or the pattern, as it was set
	 * @return whether there was one; {@code null} when no rule has that name
	 */
	public @Nullable OverrideRemovedDescriptor removeOverride(String rule, String key) {
		if (this.rules.find(rule) == null) {
			return null;
		}
		String value = overrideKey(rule, key);
		return new OverrideRemovedDescriptor(rule, value, this.overrides.remove(rule, value));
	}

	/** The key of a path that ends with {@code /override}, or {@code null} for another path. */
	private @Nullable String overriddenKey(String rule, String[] segments) {
		String key = this.keys.keyOf(rule, segments);
		int last = key.lastIndexOf('/');
		return (last > 0 && key.substring(last + 1).equals("override")) ? key.substring(0, last) : null;
	}

	/** A key as budgets name it (an address under an {@code ip} rule); a pattern as given. */
	private String overrideKey(String rule, String key) {
		if (key.indexOf('*') >= 0) {
			return key;
		}
		EndpointKeys.Target target = this.keys.target(rule, key, false);
		return (target != null) ? target.key() : key;
	}

	private static OverrideDescriptor describe(RateLimitRule rule, RateLimitOverride override) {
		List<LimitDescriptor> limits = new ArrayList<>();
		for (int i = 0; i < override.limits().size(); i++) {
			RateLimit limit = override.limits().get(i);
			limits.add(new LimitDescriptor(rule.policyName(i, override.limits()), limit.limit(), limit.windowLabel(),
					limit.burst()));
		}
		Instant ends = override.expiresAt();
		return new OverrideDescriptor(rule.name(), override.key(), override.isPattern(), limits,
				(ends != null) ? ends.toString() : null, null);
	}

	private static OverrideDescriptor badOverride(String rule, String key, String error) {
		return new OverrideDescriptor(rule, key, key.indexOf('*') >= 0, List.of(), null, error);
	}

	/**
	 * Blocks a key under a rule with {@code block-for} for a while, by hand
	 * ({@code POST /actuator/ratelimit/<rule>/<key>} with a body such as {@code {"duration": "30m"}}):
	 * every instance refuses it until the block ends or it is unblocked ({@code DELETE}).
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @param duration how long, such as {@code 30m} or {@code PT30M}
	 * @param clientAddress whether the key is a client address a rule with another key charges requests
	 * without the key's value to
	 * @return the block; not blocked, with the error, when the duration is invalid or the rule blocks no
	 * key (over HTTP, {@link RateLimitEndpointWebExtension} answers 400); {@code null} when no rule has
	 * that name
	 */
	public @Nullable BlockDescriptor block(@Selector String rule, @Selector(match = Match.ALL_REMAINING) String[] key,
			String duration, @Nullable Boolean clientAddress) {
		EndpointKeys.Target target = this.keys.target(rule, this.keys.keyOf(rule, key), Boolean.TRUE.equals(clientAddress));
		if (target == null) {
			return null;
		}
		if (!(this.rules.limiter(target.rule()) instanceof BlockingRateLimiter blocking)) {
			return badBlock(target, "rule '" + rule + "' blocks no key; set ratelimit.rules." + rule
					+ ".block-for to have its refusals, and this operation, block keys");
		}
		Duration length;
		try {
			length = DurationStyle.detectAndParse(duration.strip());
			blocking.block(target.budgetId(), length);
		}
		catch (IllegalArgumentException ex) {
			return badBlock(target, "duration '" + duration + "' is invalid: " + ex.getMessage()
					+ "; give one such as 30m or PT30M, from 1ms to 36500d");
		}
		return new BlockDescriptor(rule, target.key(), true, seconds(length), Instant.now().plus(length).toString(),
				null);
	}

	/** Seconds rounded up, as {@code Retry-After} counts them. */
	private static long seconds(Duration duration) {
		return duration.plusNanos(999_999_999).getSeconds();
	}

	private static BlockDescriptor badBlock(EndpointKeys.Target target, String error) {
		return new BlockDescriptor(target.rule().name(), target.key(), false, 0, null, error);
	}

	/**
	 * Answers {@code DELETE /actuator/ratelimit/{rule}/{key}}: a reset ({@link #reset}), or for a path that ends with
	 * {@code /override} the removal of the key's override ({@link #removeOverride}).
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to, then {@code override} for an override
	 * @param clientAddress whether the key is a client address whose budget a rule with another key
	 * charges requests without the key's value to
	 * @return what was reset or removed, or {@code null} (404) when no rule has that name
	 */
	@DeleteOperation
	public @Nullable OperationResponseBody delete(@Selector String rule,
			@Selector(match = Match.ALL_REMAINING) String[] key, @Nullable Boolean clientAddress) {
		String overridden = overriddenKey(rule, key);
		return (overridden != null) ? removeOverride(rule, overridden) : reset(rule, key, clientAddress);
	}

	/**
	 * Puts a key back to full under a rule.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @param clientAddress whether the key is a client address whose budget a rule with another key
	 * charges requests without the key's value to
	 * @return what was reset, or {@code null} (404) when no rule has that name
	 */
	public @Nullable ResetDescriptor reset(@Selector String rule, @Selector(match = Match.ALL_REMAINING) String[] key,
			@Nullable Boolean clientAddress) {
		return resetKey(rule, this.keys.keyOf(rule, key), clientAddress);
	}

	/**
	 * Puts a key back to full under a rule, the key given as a query parameter ({@code ?key=team//alpha}).
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @param clientAddress whether the key is a client address a rule with another key charges requests
	 * without the key's value to
	 * @return what was reset, or {@code null} (404) when no rule has that name
	 */
	@DeleteOperation
	public @Nullable ResetDescriptor resetKey(@Selector String rule, String key, @Nullable Boolean clientAddress) {
		EndpointKeys.Target target = this.keys.target(rule, key, Boolean.TRUE.equals(clientAddress));
		if (target == null) {
			return null;
		}
		// the key's state under the rule's own limits and under every plan's, and its block
		RateLimitRule found = target.rule();
		RateLimiter limiter = this.rules.limiter(found);
		long deleted = limiter.reset(target.budgetId(), found.limits());
		List<RateLimit> overridden = this.overrides.limits(found.name(), target.key());
		if (overridden != null) {
			deleted += limiter.reset(target.budgetId(), overridden);
		}
		for (List<RateLimit> planLimits : found.plans().values()) {
			deleted += limiter.reset(target.budgetId(), planLimits);
		}
		Boolean unblocked = (limiter instanceof BlockingRateLimiter blocking) ? blocking.unblock(target.budgetId()) : null;
		return new ResetDescriptor(rule, target.key(), true, deleted, unblocked);
	}

	/**
	 * Builds a {@link RateLimitEndpoint}; every part but the rules is optional.
	 */
	static final class Builder {

		private final RateLimitRuleRegistry rules;

		private FailureMode failureMode = FailureMode.FAIL_OPEN;

		private @Nullable CircuitBreaker circuitBreaker;

		private @Nullable RateLimitPlanCache plans;

		private @Nullable Supplier<List<String>> reload;

		private ClientAddressResolver addresses = RateLimitEngine.trustedProxies(List.of(),
				ForwardedHeader.X_FORWARDED_FOR, 128);

		private boolean reactive;

		private RateLimitOverrides overrides = RateLimitOverrides.NONE;

		private Builder(RateLimitRuleRegistry rules) {
			this.rules = rules;
		}

		/**
		 * Sets the failure mode in force, {@code fail-open} by default.
		 * @param mode the mode
		 * @return this builder
		 */
		Builder failureMode(FailureMode mode) {
			this.failureMode = mode;
			return this;
		}

		/**
		 * Sets the breaker guarding Redis, whose state the endpoint shows.
		 * @param breaker the breaker, or {@code null}
		 * @return this builder
		 */
		Builder circuitBreaker(@Nullable CircuitBreaker breaker) {
			this.circuitBreaker = breaker;
			return this;
		}

		/**
		 * Sets the plans remembered for keys under rules whose plans a resolver bean names.
		 * @param keyPlans the plans, or {@code null} when there are none
		 * @return this builder
		 */
		Builder plans(@Nullable RateLimitPlanCache keyPlans) {
			this.plans = keyPlans;
			return this;
		}

		/**
		 * Sets the reload of the rules from the environment.
		 * @param rulesReload reads the rules again and returns their names, throwing when they are invalid;
		 * {@code null} when they cannot be reloaded
		 * @return this builder
		 */
		Builder reload(@Nullable Supplier<List<String>> rulesReload) {
			this.reload = rulesReload;
			return this;
		}

		/**
		 * Sets what tells the budget a client address charges (an IPv6 address its network's).
		 * @param resolver the resolver
		 * @return this builder
		 */
		Builder addresses(ClientAddressResolver resolver) {
			this.addresses = resolver;
			return this;
		}

		/**
		 * Sets whether the endpoint is served by WebFlux, whose remaining path segments start with the rule's
		 * (Spring Boot's WebFlux mapping extracts them from the first variable of the pattern on).
		 * @param servedByWebFlux whether it is
		 * @return this builder
		 */
		Builder reactive(boolean servedByWebFlux) {
			this.reactive = servedByWebFlux;
			return this;
		}

		/**
		 * Sets the overrides of keys' limits the endpoint sets, removes and lists; none by default.
		 * @param keyOverrides the overrides
		 * @return this builder
		 */
		Builder overrides(RateLimitOverrides keyOverrides) {
			this.overrides = keyOverrides;
			return this;
		}

		/**
		 * Builds the endpoint.
		 * @return the endpoint
		 */
		RateLimitEndpoint build() {
			return new RateLimitEndpoint(this);
		}

	}

}

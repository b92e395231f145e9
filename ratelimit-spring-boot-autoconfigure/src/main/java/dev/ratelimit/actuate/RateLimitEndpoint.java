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
import dev.ratelimit.RateLimiter;
import dev.ratelimit.actuate.RateLimitDescriptors.BlockDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.KeyDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.KeyLimitDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.LimitDescriptor;
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
 * the rules.
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

	private RateLimitEndpoint(Builder builder) {
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
	 * Returns a key's state under a rule without charging it, the key given as a query parameter: any
	 * key, empty path segments and all ({@code ?key=team//alpha}).
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @param clientAddress whether the key is a client address a rule with another key charges requests
	 * without the key's value to
	 * @return the state per limit, or {@code null} (404) when no rule has that name
	 */
	@ReadOperation
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
		List<RateLimit> planLimits = found.limitsOf(plan);
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
	@WriteOperation
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
	 * Puts a key back to full under a rule.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @param clientAddress whether the key is a client address whose budget a rule with another key
	 * charges requests without the key's value to
	 * @return what was reset, or {@code null} (404) when no rule has that name
	 */
	@DeleteOperation
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
		 * Builds the endpoint.
		 * @return the endpoint
		 */
		RateLimitEndpoint build() {
			return new RateLimitEndpoint(this);
		}

	}

}

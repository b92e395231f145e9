package dev.ratelimit.actuate;

import java.net.InetAddress;
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
import dev.ratelimit.web.AddressLists;
import dev.ratelimit.web.CidrBlock;
import dev.ratelimit.web.ClientAddressResolver;
import dev.ratelimit.web.ForwardedHeader;
import dev.ratelimit.web.RateLimitPlans;
import dev.ratelimit.web.RateLimitRule;
import dev.ratelimit.web.RateLimitRules;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.convert.DurationStyle;

/**
 * The {@code ratelimit} actuator endpoint: the rules in force; one key's state under a rule, read
 * without charging it; and a reset of one key, for support staff unblocking a customer. The key is the
 * value the rule's key resolves to: a client address for {@code ip}, the header's value for
 * {@code header:<Name>}, and so on. Reads the {@link RateLimitRules}, whichever web stack applies them.
 */
@Endpoint(id = "ratelimit")
public class RateLimitEndpoint {

	private final RateLimitRules rules;

	private final ClientAddressResolver addresses;

	private final boolean reactive;

	private final RateLimitPlans plans;

	private final @Nullable Supplier<List<String>> reload;

	private final FailureMode failureMode;

	private final @Nullable CircuitBreaker circuitBreaker;

	/**
	 * Creates the endpoint.
	 * @param rules the rules and their limiters
	 * @param failureMode the failure mode in force
	 * @param circuitBreaker the breaker guarding Redis, or {@code null}
	 */
	public RateLimitEndpoint(RateLimitRules rules, FailureMode failureMode, @Nullable CircuitBreaker circuitBreaker) {
		this(rules, failureMode, circuitBreaker, RateLimitPlans.NONE);
	}

	/**
	 * Creates the endpoint for rules with plans.
	 * @param rules the rules and their limiters
	 * @param failureMode the failure mode in force
	 * @param circuitBreaker the breaker guarding Redis, or {@code null}
	 * @param plans finds a key's plan under a rule whose plans a resolver bean names
	 */
	public RateLimitEndpoint(RateLimitRules rules, FailureMode failureMode, @Nullable CircuitBreaker circuitBreaker,
			RateLimitPlans plans) {
		this(rules, failureMode, circuitBreaker, plans, null);
	}

	/**
	 * Creates the endpoint, with the reload of the rules from the environment.
	 * @param rules the rules and their limiters
	 * @param failureMode the failure mode in force
	 * @param circuitBreaker the breaker guarding Redis, or {@code null}
	 * @param plans finds a key's plan under a rule whose plans a resolver bean names
	 * @param reload reads the rules again and returns their names, throwing when they are invalid; or
	 * {@code null} when they cannot be reloaded
	 */
	public RateLimitEndpoint(RateLimitRules rules, FailureMode failureMode, @Nullable CircuitBreaker circuitBreaker,
			RateLimitPlans plans, @Nullable Supplier<List<String>> reload) {
		this(rules, failureMode, circuitBreaker, plans, reload,
				new ClientAddressResolver(List.of(), ForwardedHeader.X_FORWARDED_FOR), false);
	}

	/**
	 * Creates the endpoint, with the reload of the rules and the budgets of client addresses.
	 * @param rules the rules and their limiters
	 * @param failureMode the failure mode in force
	 * @param circuitBreaker the breaker guarding Redis, or {@code null}
	 * @param plans finds a key's plan under a rule whose plans a resolver bean names
	 * @param reload reads the rules again and returns their names, throwing when they are invalid; or
	 * {@code null} when they cannot be reloaded
	 * @param addresses tells the budget a client address charges (an IPv6 address its network's)
	 * @param reactive whether the endpoint is served by WebFlux, whose remaining path segments start with the
	 * rule's (Spring Boot's WebFlux mapping extracts them from the first variable of the pattern on)
	 */
	public RateLimitEndpoint(RateLimitRules rules, FailureMode failureMode, @Nullable CircuitBreaker circuitBreaker,
			RateLimitPlans plans, @Nullable Supplier<List<String>> reload, ClientAddressResolver addresses,
			boolean reactive) {
		this.reactive = reactive;
		this.addresses = addresses;
		this.reload = reload;
		this.plans = plans;
		this.rules = rules;
		this.failureMode = failureMode;
		this.circuitBreaker = circuitBreaker;
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
					rule.methods().stream().sorted().toList(), rule.algorithm().id(), rule.key(), rule.cost(),
					rule.shadow(), limits, rule.allowKeys().size()));
		}
		String redis = (this.circuitBreaker != null) ? this.circuitBreaker.state().id() : "unknown";
		AddressLists lists = this.rules.addressLists();
		return new RulesDescriptor(this.failureMode.id(), redis, rules,
				lists.allow().stream().map(Object::toString).toList(), lists.deny().stream().map(Object::toString).toList());
	}

	/**
	 * Reads the rules from properties again ({@code POST /actuator/ratelimit/reload}) and puts them in
	 * force for new requests; invalid rules are refused (400, with the message of a startup error) and the
	 * rules in force stay.
	 * @param action {@code reload}
	 * @return the rules now in force (200), the error (400), or 404 for another action or when the rules
	 * cannot be reloaded
	 */
	@WriteOperation
	public WebEndpointResponse<ReloadDescriptor> reload(@Selector String action) {
		if (!action.equals("reload") || this.reload == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		try {
			return new WebEndpointResponse<>(new ReloadDescriptor(true, this.reload.get(), null));
		}
		catch (RuntimeException ex) {
			return new WebEndpointResponse<>(new ReloadDescriptor(false, this.rules.pathRules().stream()
				.map(RateLimitRule::name)
				.toList(), ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
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
		return state(rule, keyOf(rule, key), clientAddress);
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
		Target target = target(rule, key, Boolean.TRUE.equals(clientAddress));
		if (target == null) {
			return null;
		}
		RateLimitRule found = target.rule();
		// the limits of the plan this instance remembers for the key: reading a key never makes the plan resolver
		// look it up (a caller could have it look up any key), and the plan's name is not shown; a plan from a
		// header is the request's, unknown here
		String plan = (found.planKind().equals("bean") && !Boolean.TRUE.equals(clientAddress))
				? this.plans.rememberedPlan(found, target.key()) : null;
		List<RateLimit> planLimits = found.limitsOf(plan);
		String budgetId = target.budgetId();
		RateLimitRule.CalendarBudget quota = found.calendarBudget(budgetId, planLimits, Instant.now());
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
	 * @return the block (200); 400 when the duration is invalid or the rule blocks no key; 404 when no
	 * rule has that name
	 */
	@WriteOperation
	public WebEndpointResponse<BlockDescriptor> block(@Selector String rule,
			@Selector(match = Match.ALL_REMAINING) String[] key, String duration, @Nullable Boolean clientAddress) {
		Target target = target(rule, keyOf(rule, key), Boolean.TRUE.equals(clientAddress));
		if (target == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
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
		return new WebEndpointResponse<>(new BlockDescriptor(rule, target.key(), true,
				seconds(length), Instant.now().plus(length).toString(),
				null));
	}

	/** Seconds rounded up, as {@code Retry-After} counts them. */
	private static long seconds(Duration duration) {
		return duration.plusNanos(999_999_999).getSeconds();
	}

	private static WebEndpointResponse<BlockDescriptor> badBlock(Target target, String error) {
		return new WebEndpointResponse<>(new BlockDescriptor(target.rule().name(), target.key(), false, 0, null, error),
				WebEndpointResponse.STATUS_BAD_REQUEST);
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
		return resetKey(rule, keyOf(rule, key), clientAddress);
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
		Target target = target(rule, key, Boolean.TRUE.equals(clientAddress));
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
	 * Returns the key of the path form {@code /actuator/ratelimit/{rule}/{key}}: its segments after the rule's.
	 * WebFlux hands the operation every segment from the rule's on ({@code [api, team, alpha]} for
	 * {@code /api/team/alpha}; Spring MVC {@code [team, alpha]}), so that one is dropped there.
	 * {@code RateLimitEndpointOnEveryStackTests} reads a key that starts with its rule's name on both stacks:
	 * should Spring Boot hand WebFlux only the key's segments, it fails.
	 */
	private String keyOf(String rule, String[] segments) {
		int from = (this.reactive && segments.length > 1 && segments[0].equals(rule)) ? 1 : 0;
		return String.join("/", java.util.Arrays.copyOfRange(segments, from, segments.length));
	}

	private @Nullable Target target(String name, String key, boolean clientAddress) {
		RateLimitRule rule = this.rules.find(name);
		if (rule == null) {
			return null;
		}
		String value = (rule.keyKind().equals("ip") || clientAddress) ? address(key) : key;
		return new Target(rule, value, clientAddress ? rule.budgetId(null, value) : rule.budgetId(value, value));
	}

	private record Target(RateLimitRule rule, String key, String budgetId) {
	}

	/**
	 * Returns an address as budgets name it: in the form requests are charged under, an IPv6 address as its
	 * network ({@code 2001:db8::1} is {@code 2001:db8::/56}, and so is the network's own text).
	 */
	private String address(String value) {
		InetAddress address = CidrBlock.parseAddress(value);
		return this.addresses.budgetAddress((address != null) ? address.getHostAddress() : value);
	}

	/**
	 * The rules in force and how failures are handled.
	 *
	 * @param failureMode the failure mode, such as {@code fail-open}
	 * @param redis the state of the circuit breaker guarding Redis: {@code closed} while Redis decides
	 * @param rules the rules
	 * @param allowedAddresses the client addresses and blocks whose requests skip every rule
	 * @param deniedAddresses the client addresses and blocks refused with 403 before any rule
	 */
	public record RulesDescriptor(String failureMode, String redis, List<RuleDescriptor> rules,
			List<String> allowedAddresses, List<String> deniedAddresses) implements OperationResponseBody {
	}

	/**
	 * One rule.
	 *
	 * @param name the rule's name
	 * @param source where it is defined
	 * @param paths its path patterns, empty for a handler's rule
	 * @param methods its HTTP methods, empty for all
	 * @param algorithm its algorithm
	 * @param key whose budget a request charges
	 * @param cost permits one request takes
	 * @param shadow whether it only observes
	 * @param limits its limits
	 * @param allowKeys how many key values are exempt from it (the values themselves, often internal API
	 * keys, are not shown)
	 */
	public record RuleDescriptor(String name, String source, List<String> paths, List<String> methods,
			String algorithm, String key, long cost, boolean shadow, List<LimitDescriptor> limits, int allowKeys) {
	}

	/**
	 * One limit of a rule.
	 *
	 * @param policy its policy name in headers
	 * @param limit permits per window
	 * @param window the window, such as {@code 1m}
	 * @param burst permits that may be taken at once
	 */
	public record LimitDescriptor(String policy, long limit, String window, long burst) {
	}

	/**
	 * The outcome of a reload.
	 *
	 * @param reloaded whether the new rules are in force
	 * @param rules the names of the rules from properties in force now
	 * @param error why the new rules were refused, or {@code null}
	 */
	public record ReloadDescriptor(boolean reloaded, List<String> rules, @Nullable String error)
			implements OperationResponseBody {
	}

	/**
	 * A key's state under a rule.
	 *
	 * @param rule the rule's name
	 * @param key the key
	 * @param limits the state under each limit: of the plan this instance remembers for the key (never
	 * looked up for the read, nor named), else the rule's own
	 * @param blocked whether the key is blocked: every request refused until the block ends; {@code null}
	 * under a rule without {@code block-for}
	 * @param blockedForSeconds how long the block has still to run, in seconds rounded up; 0 when not
	 * blocked, {@code null} under a rule without {@code block-for}
	 * @param blockedUntil when the block ends, by this instance's clock (ISO-8601), or {@code null}
	 */
	public record KeyDescriptor(String rule, String key, List<KeyLimitDescriptor> limits,
			@Nullable Boolean blocked, @Nullable Long blockedForSeconds, @Nullable String blockedUntil)
			implements OperationResponseBody {
	}

	/**
	 * A key blocked by hand.
	 *
	 * @param rule the rule's name
	 * @param key the key
	 * @param blocked whether it is blocked now
	 * @param blockedForSeconds how long the block lasts, in seconds rounded up
	 * @param blockedUntil when it ends, by this instance's clock (ISO-8601), or {@code null}
	 * @param error why it was not blocked, or {@code null}
	 */
	public record BlockDescriptor(String rule, String key, boolean blocked, long blockedForSeconds,
			@Nullable String blockedUntil, @Nullable String error) implements OperationResponseBody {
	}

	/**
	 * A key's state under one limit.
	 *
	 * @param policy the limit's policy name
	 * @param limit permits per window
	 * @param remaining permits left now
	 * @param allowed whether a request for one permit would be granted now
	 * @param retryAfterSeconds when it would be, if not now
	 * @param resetAfterSeconds when the key is back to full
	 */
	public record KeyLimitDescriptor(String policy, long limit, long remaining, boolean allowed,
			long retryAfterSeconds, long resetAfterSeconds) {
	}

	/**
	 * A key put back to full.
	 *
	 * @param rule the rule's name
	 * @param key the key
	 * @param reset always {@code true}
	 * @param deletedEntries how many stored entries were deleted
	 * @param unblocked whether a block of the key was lifted (with any memory of past blocks); {@code null}
	 * under a rule without {@code block-for}
	 */
	public record ResetDescriptor(String rule, String key, boolean reset, long deletedEntries, @Nullable Boolean unblocked)
			implements OperationResponseBody {
	}

}

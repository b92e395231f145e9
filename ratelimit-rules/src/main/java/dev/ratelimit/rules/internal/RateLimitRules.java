package dev.ratelimit.rules.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.rules.flow.LogThrottle;
import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.MethodLimits;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.RuleKey;

import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;

/**
 * Every rule in force, from properties and from {@link dev.ratelimit.RateLimited} handlers, with the
 * limiter that decides each: the one source that the web stacks, the actuator endpoint and the metrics
 * read. Answers which rules apply to a request from its method, path and handler; knows no servlet or
 * reactive type.
 */
final class RateLimitRules implements RateLimitRuleRegistry {

	private static final Log logger = LogFactory.getLog(RateLimitRules.class);

	private static final LogThrottle CONDITION_FAILURES = new LogThrottle();

	/** The rules from properties and the address lists, replaced together when they are reloaded. */
	private volatile Policy policy;

	private final RateLimitRuleFactory factory;

	private final Map<Algorithm, RateLimiter> limiters;

	private final Map<Blocking, BlockingRateLimiter> blocking = new ConcurrentHashMap<>();

	private final ConcurrentMap<HandlerKey, List<RateLimitRule>> handlerRules = new ConcurrentHashMap<>();

	private final ConcurrentMap<HandlerKey, MethodLimits> methodLimits = new ConcurrentHashMap<>();

	private final Map<String, String> sources = new HashMap<>();

	/** Every rule, those from properties first; replaced, never changed, under this object's lock. */
	private volatile List<RateLimitRule> all = List.of();

	private volatile boolean anyHandlerRules;

	private volatile boolean anyHandlerCountsStatuses;

	private volatile boolean methodRulesReadRequests;

	/**
	 * Creates the registry.
	 * @param pathRules the rules that apply by path and method, from properties
	 * @param factory builds the rules of annotated handlers
	 * @param limiters the limiter of each algorithm
	 * @throws InvalidRateLimitRuleException when two rules share a name or a rule's algorithm has no
	 * limiter
	 */
	RateLimitRules(List<RateLimitRule> pathRules, RateLimitRuleFactory factory,
			Map<Algorithm, ? extends RateLimiter> limiters) {
		this(pathRules, factory, limiters, AddressLists.NONE);
	}

	/**
	 * Creates the registry with client addresses allowed past every rule or denied before any.
	 * @param pathRules the rules that apply by path and method, from properties
	 * @param factory builds the rules of annotated handlers
	 * @param limiters the limiter of each algorithm
	 * @param addressLists the allowed and denied client addresses
	 * @throws InvalidRateLimitRuleException when two rules share a name or a rule's algorithm has no
	 * limiter
	 */
	RateLimitRules(List<RateLimitRule> pathRules, RateLimitRuleFactory factory,
			Map<Algorithm, ? extends RateLimiter> limiters, AddressLists addressLists) {
		this.factory = factory;
		this.limiters = Map.copyOf(limiters);
		this.policy = new Policy(List.copyOf(pathRules), addressLists);
		pathRules.forEach(this::register);
	}

	/**
	 * Returns the rules to apply to a request before anything else sees it, security included: the
	 * rules from properties whose paths and methods match it, but those keyed by {@code principal}.
	 * @param method the HTTP method
	 * @param path the path within the application, asked only when a rule has paths to match
	 * @return the rules, in the order they are checked
	 */
	@Override
	public List<RateLimitRule> matchBeforeAuthentication(String method, Supplier<PathContainer> path) {
		return matchPathRules(method, path, false, List.of());
	}

	/**
	 * Returns the rules to apply to a request once it is authenticated and its handler is known: the
	 * rules from properties keyed by {@code principal} whose paths and methods match it, then those of
	 * its handler's annotations.
	 * @param method the HTTP method
	 * @param path the path within the application, asked only when a rule has paths to match
	 * @param handler the handler method, or {@code null} when the handler is not a method
	 * @return the rules, in the order they are checked
	 */
	@Override
	public List<RateLimitRule> matchAfterAuthentication(String method, Supplier<PathContainer> path,
			@Nullable HandlerMethod handler) {
		return matchPathRules(method, path, true, (handler != null) ? forHandler(handler) : List.of());
	}

	private List<RateLimitRule> matchPathRules(String method, Supplier<PathContainer> path, boolean principal,
			List<RateLimitRule> handlerRules) {
		// a request's path is parsed only when a rule of its turn has paths to match it against
		List<RateLimitRule> pathRules = principal ? this.policy.afterAuthentication() : this.policy.beforeAuthentication();
		if (pathRules.isEmpty()) {
			return handlerRules;
		}
		PathContainer parsed = path.get();
		List<RateLimitRule> applicable = null;
		for (RateLimitRule rule : pathRules) {
			if (rule.matches(parsed, method)) {
				if (applicable == null) {
					applicable = new ArrayList<>(pathRules.size() + handlerRules.size());
				}
				applicable.add(rule);
			}
		}
		if (applicable == null) {
			return handlerRules;
		}
		if (!handlerRules.isEmpty()) {
			applicable.addAll(handlerRules);
		}
		return applicable;
	}

	/**
	 * Builds, checks and registers the rules of a handler's {@link dev.ratelimit.RateLimited}
	 * annotations, once per handler; called for every handler at startup so that a bad annotation stops
	 * the application from starting.
	 * @param handler the handler method
	 * @return the handler's rules
	 * @throws InvalidRateLimitRuleException when an annotation is invalid
	 */
	@Override
	public List<RateLimitRule> forHandler(HandlerMethod handler) {
		return this.handlerRules.computeIfAbsent(new HandlerKey(handler.getMethod(), handler.getBeanType()),
				(key) -> {
					List<RateLimitRule> built = this.factory.forHandler(key.method(), key.beanType());
					built.forEach(this::register);
					if (!built.isEmpty()) {
						this.anyHandlerRules = true;
					}
					if (built.stream().anyMatch((rule) -> rule.countStatuses() != null)) {
						this.anyHandlerCountsStatuses = true;
					}
					return List.copyOf(built);
				});
	}

	/**
	 * Builds, checks and registers the limits of a {@link dev.ratelimit.RateLimited} method of a bean that is not a
	 * web handler, once per method; they are listed with the others (the endpoint, the metrics) but never matched
	 * to a web request.
	 * @param method the method
	 * @param beanType the class of the bean
	 * @return the method's limits, {@link MethodLimits#NONE} when it has none
	 * @throws InvalidRateLimitRuleException when an annotation is invalid
	 */
	@Override
	public MethodLimits forBeanMethod(Method method, Class<?> beanType) {
		return this.methodLimits.computeIfAbsent(new HandlerKey(method, beanType), (key) -> {
			MethodLimits built = this.factory.forBeanMethod(key.method(), key.beanType());
			built.rules().forEach(this::register);
			if (built.rules().stream().anyMatch((rule) -> !(rule.key() instanceof RuleKey.Expression)
					|| rule.plan() instanceof dev.ratelimit.rules.PlanSource.Header)) {
				this.methodRulesReadRequests = true;
			}
			return built.rules().isEmpty() ? MethodLimits.NONE : built;
		});
	}

	/**
	 * Checks and registers a rule that an entry point applies by itself (the budget of a partner this application
	 * calls): it is listed with the others (the endpoint, the metrics) but never matched to a request.
	 * @param rule the rule
	 * @throws InvalidRateLimitRuleException when another rule has its name or its algorithm has no limiter
	 */
	@Override
	public void registerAttached(RateLimitRule rule) {
		register(rule);
	}

	/**
	 * Logs, at most once a minute, that a rule's condition failed and the rule was applied.
	 * @param rule the rule
	 * @param ex the condition's failure
	 */
	static void conditionFailed(RateLimitRule rule, Throwable ex) {
		long others = CONDITION_FAILURES.tryLog();
		if (others >= 0) {
			logger.warn("The condition of rate-limit rule '" + rule.name() + "' (bean:" + rule.condition() + ") failed"
					+ ((others > 0) ? " (and " + others + " more times in the last minute)" : "")
					+ "; the rule was applied", ex);
		}
	}

	/**
	 * Returns whether a rule or an address list may apply to a request before authentication; when none may,
	 * an entry point need not take the request through that turn.
	 * @return {@code true} when an address list is set or a rule from properties is not keyed by
	 * {@code principal}
	 */
	boolean mayApplyBeforeAuthentication() {
		Policy policy = this.policy;
		return !policy.addressLists().isEmpty() || !policy.beforeAuthentication().isEmpty();
	}

	/**
	 * Returns whether a rule may apply to a request after authentication; when none may, an entry point need not
	 * take the request through that turn.
	 * @return {@code true} when a rule from properties is keyed by {@code principal} or a handler has rules
	 */
	boolean mayApplyAfterAuthentication() {
		return this.anyHandlerRules || !this.policy.afterAuthentication().isEmpty();
	}

	/**
	 * Returns whether a {@link dev.ratelimit.RateLimited} bean method has a rule whose key or plan the web request it
	 * is called in gives ({@code ip}, a header, a parameter, the principal, a key-resolver bean), so that a stack that
	 * must make the request reachable from such a call need not do it for every request otherwise.
	 * @return {@code true} once such a method's rules were built
	 */
	@Override
	public boolean methodRulesReadRequests() {
		return this.methodRulesReadRequests;
	}

	/**
	 * Returns whether a handler has rules of its own, so that a web stack need not look a request's
	 * handler up when none has.
	 * @return {@code true} once the rules of an annotated handler were built
	 */
	boolean hasHandlerRules() {
		return this.anyHandlerRules;
	}

	/**
	 * Returns the client addresses allowed past every rule and those denied before any.
	 * @return the lists
	 */
	AddressLists addressLists() {
		return this.policy.addressLists();
	}

	@Override
	public List<CidrBlock> allowedAddresses() {
		return this.policy.addressLists().allow();
	}

	@Override
	public List<CidrBlock> deniedAddresses() {
		return this.policy.addressLists().deny();
	}

	@Override
	public void replace(List<RateLimitRule> pathRules, List<CidrBlock> allow, List<CidrBlock> deny) {
		replace(pathRules, new AddressLists(allow, deny));
	}

	@Override
	public List<RateLimitRule> warnOfUnmappedRules(Collection<String> mappedPatterns) {
		return UnmappedRules.warn(this.policy.pathRules(), mappedPatterns);
	}

	/**
	 * Replaces the rules from properties and the address lists at once, for new requests, after checking
	 * the new rules as at startup; on an error nothing changes. The rules of annotated handlers stay.
	 * Budgets carry over: a rule's budgets are keyed by its name and key, whatever its limits.
	 * @param pathRules the new rules that apply by path and method
	 * @param addressLists the new allowed and denied client addresses
	 * @throws InvalidRateLimitRuleException when two rules share a name or a rule's algorithm has no
	 * limiter
	 */
	synchronized void replace(List<RateLimitRule> pathRules, AddressLists addressLists) {
		List<RateLimitRule> old = this.policy.pathRules();
		List<RateLimitRule> handlers = this.all.stream().filter((rule) -> !old.contains(rule)).toList();
		Map<String, String> sources = new HashMap<>();
		handlers.forEach((rule) -> sources.put(rule.name(), rule.source()));
		for (RateLimitRule rule : pathRules) {
			check(rule, sources.putIfAbsent(rule.name(), rule.source()));
		}
		List<RateLimitRule> all = new ArrayList<>(pathRules);
		all.addAll(handlers);
		this.sources.clear();
		this.sources.putAll(sources);
		this.policy = new Policy(List.copyOf(pathRules), addressLists);
		this.all = List.copyOf(all);
		pathRules.stream().filter((rule) -> !old.contains(rule)).forEach((rule) -> logger.info(rule.describe()));
	}

	/**
	 * Returns the response headers the rules read actual costs from ({@code cost-from=header:<Name>}), by lower-case
	 * name: {@code true} when the header stays in the response, {@code false} when it is removed.
	 * @return the headers, empty when no rule reads one
	 */
	Map<String, Boolean> costHeaders() {
		return this.policy.costHeaders();
	}

	/**
	 * Returns whether a rule counts only some statuses ({@code count-statuses}): by path, or of a handler known so
	 * far (the handlers' rules are built at startup).
	 * @return {@code false} when no response needs watching for the status it commits
	 */
	boolean countsStatuses() {
		return this.policy.countsStatuses() || this.anyHandlerCountsStatuses;
	}

	/**
	 * Returns the rules that apply by path and method.
	 * @return the rules from properties
	 */
	@Override
	public List<RateLimitRule> pathRules() {
		return this.policy.pathRules();
	}

	/**
	 * Returns every rule in force: those from properties, then those of annotated handlers.
	 * @return the rules
	 */
	@Override
	public List<RateLimitRule> all() {
		return this.all;
	}

	/**
	 * Returns the rule of a name.
	 * @param name the name
	 * @return the rule, or {@code null} when none has it
	 */
	@Override
	public @Nullable RateLimitRule find(String name) {
		for (RateLimitRule rule : this.all) {
			if (rule.name().equals(name)) {
				return rule;
			}
		}
		return null;
	}

	/**
	 * Returns the limiter that decides for a rule.
	 * @param rule the rule
	 * @return the limiter of its algorithm
	 */
	@Override
	public RateLimiter limiter(RateLimitRule rule) {
		RateLimiter limiter = this.limiters.get(rule.algorithm());
		if (limiter == null) {
			throw new IllegalStateException("No limiter for the " + rule.algorithm().id() + " algorithm of rule '"
					+ rule.name() + "'");
		}
		BlockPolicy block = rule.block();
		if (block == null) {
			return limiter;
		}
		// one blocking limiter per algorithm and policy, shared by the rules that have both
		return this.blocking.computeIfAbsent(new Blocking(rule.algorithm(), block), (key) -> limiter.blocking(block));
	}

	private synchronized void register(RateLimitRule rule) {
		String existing = this.sources.putIfAbsent(rule.name(), rule.source());
		check(rule, existing);
		if (existing == null) {
			List<RateLimitRule> all = new ArrayList<>(this.all);
			all.add(rule);
			this.all = List.copyOf(all);
			logger.info(rule.describe());
		}
	}

	/**
	 * Checks a rule's name against the source of the rule that already has it, and its algorithm.
	 */
	private void check(RateLimitRule rule, @Nullable String existing) {
		if (existing != null && !existing.equals(rule.source())) {
			throw new InvalidRateLimitRuleException(rule.name() + " (" + rule.source() + ")", "name", rule.name(),
					"it is already the name of the rule of " + existing
							+ "; rules never share a budget, so give each its own name");
		}
		if (!this.limiters.containsKey(rule.algorithm())) {
			throw new InvalidRateLimitRuleException(rule.name(), "algorithm", rule.algorithm().id(),
					"no RateLimiter bean implements it; the limiters need a RedisConnectionFactory "
							+ "(add spring-boot-starter-data-redis and set spring.data.redis.*) or declare a "
							+ "RateLimiter bean for this algorithm");
		}
		if (rule.block() != null) {
			try {
				limiter(rule);
			}
			catch (UnsupportedOperationException ex) {
				throw new InvalidRateLimitRuleException(rule.name(), "block-for", RateLimit.label(rule.block().blockFor()),
						"the RateLimiter bean of " + rule.algorithm().id() + " (" + this.limiters.get(rule.algorithm())
							.getClass()
							.getName() + ") cannot block keys; blocks live in Redis, next to the limits: use the "
								+ "starter's limiters or one built on RedisRateLimiter");
			}
		}
	}

	private record Policy(List<RateLimitRule> pathRules, AddressLists addressLists,
			List<RateLimitRule> beforeAuthentication, List<RateLimitRule> afterAuthentication,
			Map<String, Boolean> costHeaders, boolean countsStatuses) {

		Policy(List<RateLimitRule> pathRules, AddressLists addressLists) {
			this(pathRules, addressLists, pathRules.stream().filter((rule) -> !rule.needsAuthentication()).toList(),
					pathRules.stream().filter(RateLimitRule::needsAuthentication).toList(), costHeaders(pathRules),
					pathRules.stream().anyMatch((rule) -> rule.countStatuses() != null));
		}

		private static Map<String, Boolean> costHeaders(List<RateLimitRule> rules) {
			Map<String, Boolean> headers = new HashMap<>();
			for (RateLimitRule rule : rules) {
				if (rule.costFrom() instanceof ResponseCost.Header header) {
					// hidden unless every rule that reads it exposes it
					headers.merge(header.name().toLowerCase(Locale.ROOT), header.expose(), Boolean::logicalAnd);
				}
			}
			return Map.copyOf(headers);
		}

	}

	private record HandlerKey(Method method, Class<?> beanType) {
	}

	private record Blocking(Algorithm algorithm, BlockPolicy policy) {
	}

}

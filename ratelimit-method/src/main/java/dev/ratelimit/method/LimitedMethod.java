package dev.ratelimit.method;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.InvalidRateLimitException;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.MethodLimits;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;
import dev.ratelimit.rules.RuleKey;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

/**
 * One {@link dev.ratelimit.RateLimited} bean method as the interceptor applies it, built and checked once: its rules,
 * their parsed SpEL keys and costs, its fallback, and how it returns (a value, a future, a publisher).
 */
final class LimitedMethod {

	/** A method without limits: called as it is. */
	static final LimitedMethod NONE = new LimitedMethod();

	private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LimitedMethod.class.getClassLoader());

	private final String description;

	/** The bean class's method, whose parameter names the expressions read (not an interface's). */
	private final @Nullable Method method;

	private final List<RateLimitRule> rules;

	private final Map<String, Expression> keys = new HashMap<>();

	private final Map<String, Expression> costs = new HashMap<>();

	/** The expressions of the actual costs ({@code costFrom}), over the call's result, by rule. */
	private final Map<String, Expression> actualCosts = new HashMap<>();

	private final Fallbacks.@Nullable Fallback fallback;

	private final Returns returns;

	private LimitedMethod() {
		// the fields of a method without limits are never read
		this.description = "";
		this.method = null;
		this.rules = List.of();
		this.fallback = null;
		this.returns = Returns.VALUE;
	}

	/**
	 * Builds a method's limits, parsing and checking its expressions and its fallback.
	 * @throws InvalidRateLimitRuleException when one is invalid
	 */
	LimitedMethod(Method method, Class<?> targetClass, MethodLimits limits) {
		this.description = targetClass.getSimpleName() + "." + method.getName();
		this.method = method;
		this.rules = limits.rules();
		String at = " (@RateLimited on " + targetClass.getName() + "." + method.getName() + ")";
		try {
			this.returns = returns(method, this.rules.get(0).name());
			for (RateLimitRule rule : this.rules) {
				if (rule.key() instanceof RuleKey.Expression expression) {
					this.keys.put(rule.name(), MethodExpressions.parse(rule.name(), "key", expression.expression(), method));
				}
				String cost = limits.costOf(rule);
				if (cost != null) {
					this.costs.put(rule.name(), MethodExpressions.parse(rule.name(), "cost", cost, method));
				}
				if (rule.costFrom() instanceof ResponseCost.Result result) {
					if (this.returns == Returns.FLUX) {
						throw new InvalidRateLimitRuleException(rule.name(), "costFrom", result.expression(),
								"a Flux has no one result to read the cost from; return a Mono, a future or a value");
					}
					this.actualCosts.put(rule.name(),
							MethodExpressions.parse(rule.name(), "costFrom", result.expression(), method, Set.of("result")));
				}
			}
			String fallbackName = limits.fallbackMethod();
			this.fallback = (fallbackName != null)
					? Fallbacks.find(method, targetClass, fallbackName, this.rules.get(0).name()) : null;
		}
		catch (InvalidRateLimitRuleException ex) {
			throw new InvalidRateLimitRuleException(ex.getRule() + at, ex.getAttribute(), ex.getValue(), ex.getReason());
		}
	}

	/**
	 * Tells how a method returns; a future or publisher type the interceptor cannot stand in for stops the
	 * application rather than being decided as a plain value (blocking) or failing at the first call.
	 */
	private static Returns returns(Method method, String rule) {
		Class<?> type = method.getReturnType();
		boolean suspending = KotlinCalls.isSuspending(method);
		if ((suspending || KotlinCalls.isFlow(type)) && !(KotlinCalls.COROUTINES && REACTOR)) {
			throw new InvalidRateLimitRuleException(rule, "return type", suspending ? "suspend" : type.getName(),
					"a limited suspend function or Flow is decided as a publisher, which needs "
							+ "org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the class path; add it");
		}
		if (suspending) {
			// Spring calls a suspending function as a publisher inside the proxy, and awaits it for the caller
			return KotlinCalls.isFlow(new MethodParameter(method, -1).getParameterType()) ? Returns.FLUX : Returns.MONO;
		}
		if (KotlinCalls.isFlow(type)) {
			return Returns.FLOW;
		}
		if (type == CompletableFuture.class || type == CompletionStage.class) {
			return Returns.FUTURE;
		}
		if (REACTOR && ReactiveCalls.isMono(type)) {
			return Returns.MONO;
		}
		if (REACTOR && ReactiveCalls.isFlux(type)) {
			return Returns.FLUX;
		}
		if (CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)
				|| (REACTOR && ReactiveCalls.isPublisher(type))) {
			throw new InvalidRateLimitRuleException(rule, "return type", type.getName(), "a limited method returns a "
					+ "value, CompletableFuture, CompletionStage, Mono or Flux, so that its refusal reaches the caller "
					+ "where it looks for it; change the method, or limit the method it calls");
		}
		return Returns.VALUE;
	}

	/**
	 * Returns the method whose parameters the expressions read.
	 */
	Method method() {
		return java.util.Objects.requireNonNull(this.method);
	}

	/** The method's rules as declared, whatever a call costs: what they read of a web request. */
	List<RateLimitRule> declaredRules() {
		return this.rules;
	}

	boolean isLimited() {
		return !this.rules.isEmpty();
	}

	/** The method as messages name it, such as {@code SmsService.send}. */
	String description() {
		return this.description;
	}

	Returns returns() {
		return this.returns;
	}

	Fallbacks.@Nullable Fallback fallback() {
		return this.fallback;
	}

	/**
	 * Returns the rules one call is decided under: those whose cost is an expression carry the call's cost, and
	 * those it costs nothing are left out, but for their slot of calls in flight ({@code concurrency}) when they have
	 * one.
	 * @param context the call's evaluation context, asked for only when a cost is an expression
	 * @throws IllegalArgumentException when a cost is not a whole number from 0 to what the rule's limits allow
	 */
	List<RateLimitRule> rules(java.util.function.Supplier<EvaluationContext> context) {
		if (this.costs.isEmpty()) {
			return this.rules;
		}
		List<RateLimitRule> rules = new ArrayList<>(this.rules.size());
		for (RateLimitRule rule : this.rules) {
			Expression cost = this.costs.get(rule.name());
			if (cost == null) {
				rules.add(rule);
				continue;
			}
			long permits = cost(rule, cost, context.get());
			if (permits > 0 || rule.concurrency() != null) {
				// a free call of a rule with a concurrency still takes its slot (a cost of 0 charges no permits)
				rules.add(rule.toBuilder().cost(permits).build());
			}
		}
		return rules;
	}

	/**
	 * Returns the actual costs of a call that returned, for its rules with {@code costFrom}: each expression
	 * evaluated with {@code #result}; one that fails or tells no whole number from 0 leaves the reserved cost.
	 * @param context the call's evaluation context
	 * @param result what the call returned (a future's or a {@code Mono}'s value)
	 * @return the costs
	 */
	ResponseCost.Actual actualCosts(java.util.function.Supplier<EvaluationContext> context, @Nullable Object result) {
		if (this.actualCosts.isEmpty()) {
			return ResponseCost.Actual.NONE;
		}
		return (rule) -> {
			Expression expression = this.actualCosts.get(rule.name());
			if (expression == null) {
				return null;
			}
			try {
				EvaluationContext evaluation = context.get();
				evaluation.setVariable("result", result);
				return ResponseCost.parse(expression.getValue(evaluation));
			}
			catch (RuntimeException ex) {
				return null;
			}
		};
	}

	private long cost(RateLimitRule rule, Expression expression, EvaluationContext context) {
		Object value;
		try {
			value = expression.getValue(context);
		}
		catch (EvaluationException ex) {
			throw new IllegalArgumentException("The cost of a call to " + this.description + " under rate-limit rule '"
					+ rule.name() + "' could not be evaluated (" + expression.getExpressionString() + "): "
					+ ex.getMessage(), ex);
		}
		long permits = permits(value);
		if (permits < 0) {
			throw new IllegalArgumentException("The cost of a call to " + this.description + " under rate-limit rule '"
					+ rule.name() + "' is " + value + " (" + expression.getExpressionString()
					+ "); a cost is a whole number from 0 (free) up to the rule's limit, and at most " + RateLimiter.MAX_COST);
		}
		if (permits > 0) {
			checkFits(rule, permits, rule.limits(), expression);
			for (List<RateLimit> plan : rule.plans().values()) {
				checkFits(rule, permits, plan, expression);
			}
		}
		return permits;
	}

	private static long permits(@Nullable Object value) {
		// exact whatever the Number's type: a BigInteger of 2^64 is not its low 64 bits (0), 2.5 is not 2
		Long permits = ResponseCost.parse(value);
		return (permits != null) ? permits : -1;
	}

	private void checkFits(RateLimitRule rule, long permits, List<RateLimit> limits, Expression expression) {
		try {
			rule.algorithm().check(limits, permits);
		}
		catch (InvalidRateLimitException ex) {
			throw new IllegalArgumentException("The cost of a call to " + this.description + " under rate-limit rule '"
					+ rule.name() + "' is " + permits + " (" + expression.getExpressionString()
					+ "), more than its limits let one call take (" + ex.getMessage()
					+ "); such a call could never be allowed", ex);
		}
	}

	/**
	 * Evaluates a rule's SpEL key for a call.
	 * @return the key's value, or {@code null} when it evaluates to {@code null}
	 * @throws EvaluationException when it cannot be evaluated
	 */
	@Nullable String key(RateLimitRule rule, EvaluationContext context) {
		Expression key = this.keys.get(rule.name());
		if (key == null) {
			throw new IllegalStateException("Rate-limit rule '" + rule.name() + "' has no SpEL key");
		}
		Object value = key.getValue(context);
		return (value != null) ? value.toString() : null;
	}

	/**
	 * Finds the rule a limit that refused a call belongs to, by its policy name: the rule's name, or the name
	 * and a window.
	 */
	String ruleOf(String policy) {
		String best = policy;
		int longest = -1;
		for (RateLimitRule rule : this.rules) {
			String name = rule.name();
			if ((policy.equals(name) || policy.startsWith(name + "-")) && name.length() > longest) {
				best = name;
				longest = name.length();
			}
		}
		return best;
	}

	/** How a method returns. */
	enum Returns {

		/** A value, or nothing: decided before the call, on the caller's thread. */
		VALUE,

		/** A {@code CompletionStage}: decided without blocking; a refusal completes it exceptionally. */
		FUTURE,

		/**
		 * A {@code Mono}, or a Kotlin {@code suspend} function (which Spring calls as a {@code Mono} inside the
		 * proxy): decided on subscription without blocking; a refusal is its error signal.
		 */
		MONO,

		/**
		 * A {@code Flux}, or a Kotlin {@code suspend} function returning a {@code Flow}: decided on subscription
		 * without blocking; a refusal is its error signal.
		 */
		FLUX,

		/** A Kotlin {@code Flow}: each collection is one call, decided as a {@code Flux}'s subscription. */
		FLOW

	}

}

package dev.ratelimit.rules;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.InvalidRateLimitException;
import dev.ratelimit.RateLimit;

import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Turns rule definitions, from properties or from {@link dev.ratelimit.RateLimited} annotations, into checked
 * {@link RateLimitRule rules}, whichever web stack applies them. Every problem is an
 * {@link InvalidRateLimitRuleException} that names the attribute, its value and the fix.
 *
 * @since 0.1.0
 */
public final class RateLimitRuleFactory {

	/** The lease of a request's slot of work in flight when the rule sets none. */
	public static final Duration DEFAULT_CONCURRENCY_LEASE = Duration.ofMinutes(1);

	/** The shortest lease: renewals run every half lease. */
	static final Duration MIN_CONCURRENCY_LEASE = Duration.ofSeconds(1);


	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

	private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	private static final String KEY_FORMS = "use ip, header:<Name>, param:<name>, principal or bean:<name>";

	private final Algorithm defaultAlgorithm;

	private final KeyResolvers keyResolvers;

	private final boolean shadow;

	private final java.util.function.Predicate<String> planResolvers;

	/**
	 * Creates a factory whose annotations cannot name plan resolver beans.
	 * @param defaultAlgorithm the algorithm of rules that name none
	 * @param keyResolvers tells which bean names a {@code bean:<name>} key may use
	 * @param shadow whether rules that do not say otherwise only observe
	 */
	public RateLimitRuleFactory(Algorithm defaultAlgorithm, KeyResolvers keyResolvers, boolean shadow) {
		this(defaultAlgorithm, keyResolvers, shadow, (name) -> false);
	}

	/**
	 * Creates a factory.
	 * @param defaultAlgorithm the algorithm of rules that name none
	 * @param keyResolvers tells which bean names a {@code bean:<name>} key may use
	 * @param shadow whether rules that do not say otherwise only observe
	 * @param planResolvers tells which bean names an annotation's {@code plan=bean:<name>} may use
	 */
	public RateLimitRuleFactory(Algorithm defaultAlgorithm, KeyResolvers keyResolvers, boolean shadow,
			java.util.function.Predicate<String> planResolvers) {
		this.defaultAlgorithm = defaultAlgorithm;
		this.keyResolvers = keyResolvers;
		this.shadow = shadow;
		this.planResolvers = planResolvers;
	}

	/**
	 * Creates a rule that applies to requests by path and method.
	 * @param name the rule's name: letters, digits, {@code .}, {@code _} and {@code -}
	 * @param paths Spring path patterns, at least one
	 * @param methods HTTP methods, empty for all
	 * @param limits the rule's limits, at least one
	 * @param algorithm the algorithm, {@code null} for the default
	 * @param key whose budget is charged, {@code null} for {@code ip}
	 * @param missingKey what the rule does with a request that lacks its key
	 * @param cost permits one request takes
	 * @param shadow whether the rule only observes; {@code null} for the factory's default
	 * @return the rule
	 * @throws InvalidRateLimitRuleException when an attribute is invalid
	 */
	public RateLimitRule create(String name, List<String> paths, List<String> methods, List<LimitDefinition> limits,
			@Nullable Algorithm algorithm, @Nullable String key, MissingKey missingKey, long cost,
			@Nullable Boolean shadow) {
		checkName(name);
		if (paths.isEmpty()) {
			throw new InvalidRateLimitRuleException(name, "paths", paths,
					"a rule needs at least one path pattern, for example /api/**");
		}
		List<PathPattern> patterns = new ArrayList<>();
		for (String path : paths) {
			patterns.add(parsePath(name, path));
		}
		return build(name, patterns, methods(name, methods), limits, algorithm, key, missingKey, cost,
				"ratelimit.rules." + name, (shadow != null) ? shadow : this.shadow, false);
	}

	/**
	 * Creates a rule that applies to calls its entry point hands it rather than to requests by path (the calls a
	 * chat client makes to its model), keyed as a request rule is, or by a SpEL expression over the call.
	 * @param name the rule's name: letters, digits, {@code .}, {@code _} and {@code -}
	 * @param limits the rule's limits, at least one
	 * @param algorithm the algorithm, {@code null} for the default
	 * @param key whose budget is charged, {@code null} for {@code ip}
	 * @param missingKey what the rule does with a call that lacks its key
	 * @param shadow whether the rule only observes; {@code null} for the factory's default
	 * @param source where the rule is defined, for messages
	 * @return the rule, charging one permit per call
	 * @throws InvalidRateLimitRuleException when an attribute is invalid
	 */
	public RateLimitRule forCalls(String name, List<LimitDefinition> limits, @Nullable Algorithm algorithm,
			@Nullable String key, MissingKey missingKey, @Nullable Boolean shadow, String source) {
		checkName(name);
		return build(name, List.of(), Set.of(), limits, algorithm, key, missingKey, 1, source,
				(shadow != null) ? shadow : this.shadow, true);
	}

	/**
	 * Creates a rule that applies where it is attached rather than by path, such as the
	 * {@code RequestRateLimiter} filter of a Spring Cloud Gateway route, whose key resolver finds the key: its
	 * key is {@link RuleKey.Resolver}: a request charges {@code <rule>:resolver:<key>}.
	 * @param name the rule's name: letters, digits, {@code .}, {@code _} and {@code -}
	 * @param limits the rule's limits; none for a rule of requests in flight only, which
	 * {@link #withConcurrency} must then give
	 * @param algorithm the algorithm, {@code null} for the default
	 * @param cost permits one request takes
	 * @param source where the rule is defined, for messages
	 * @return the rule
	 * @throws InvalidRateLimitRuleException when an attribute is invalid
	 */
	public RateLimitRule forAttachment(String name, List<LimitDefinition> limits, @Nullable Algorithm algorithm,
			long cost, String source) {
		checkName(name);
		Algorithm chosen = (algorithm != null) ? algorithm : this.defaultAlgorithm;
		// no limits: a route of requests in flight only, which withConcurrency checks
		return RateLimitRule.builder(name, limits.isEmpty() ? List.of() : checkedLimits(name, limits, chosen, cost), chosen,
				new RuleKey.Resolver(), source)
			.cost(cost)
			.shadow(this.shadow)
			.build();
	}

	/**
	 * Returns the rules of the {@link dev.ratelimit.RateLimited} annotations on a handler method and its class, in
	 * that order: class-level first.
	 * @param method the handler method
	 * @param beanType the class of the handler bean
	 * @return the rules, empty when neither is annotated
	 * @throws InvalidRateLimitRuleException when an annotation is invalid
	 */
	public List<RateLimitRule> forHandler(Method method, Class<?> beanType) {
		return new RateLimitedAnnotations(this).forHandler(method, beanType);
	}

	/**
	 * Returns the limits of the {@link dev.ratelimit.RateLimited} annotations on a method of a bean that is not a
	 * web handler and its class, class-level first: their keys and costs may be SpEL expressions over the
	 * method's arguments, and they may name a fallback method.
	 * @param method the method
	 * @param beanType the class of the bean
	 * @return the limits, {@link MethodLimits#NONE} when neither is annotated
	 * @throws InvalidRateLimitRuleException when an annotation is invalid
	 */
	public MethodLimits forBeanMethod(Method method, Class<?> beanType) {
		return new RateLimitedAnnotations(this).forBeanMethod(method, beanType);
	}

	/** Whether rules that do not say otherwise only observe ({@code ratelimit.shadow}). */
	boolean shadow() {
		return this.shadow;
	}

	/**
	 * Returns whether a {@link dev.ratelimit.RateLimitPlanResolver} bean of a name exists, for entry points that check
	 * the plans of their rules as the factory does.
	 * @return the test
	 */
	public java.util.function.Predicate<String> planResolvers() {
		return this.planResolvers;
	}

	/**
	 * Parses an algorithm name as properties write it ({@code sliding-window-log}) or as the enum
	 * constant ({@code SLIDING_WINDOW_LOG}), as the binder converts an enum.
	 * @param rule the rule's name, for the error
	 * @param text the name
	 * @return the algorithm
	 * @throws InvalidRateLimitRuleException when no algorithm has that name
	 */
	public static Algorithm parseAlgorithm(String rule, String text) {
		// as the binder converts an enum: case and separators aside (sliding-window-log, SLIDING_WINDOW_LOG)
		String wanted = lenient(text);
		for (Algorithm algorithm : Algorithm.values()) {
			if (lenient(algorithm.name()).equals(wanted)) {
				return algorithm;
			}
		}
		throw new InvalidRateLimitRuleException(rule, "algorithm", text, "use one of "
				+ String.join(", ", Arrays.stream(Algorithm.values()).map(Algorithm::id).toList()));
	}

	private static String lenient(String name) {
		StringBuilder letters = new StringBuilder(name.length());
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (Character.isLetterOrDigit(c)) {
				letters.append(Character.toLowerCase(c));
			}
		}
		return letters.toString();
	}

	private static String format(Duration duration) {
		return RateLimit.label(duration);
	}

	RateLimitRule build(String name, List<PathPattern> patterns, Set<String> methods,
			List<LimitDefinition> definitions, @Nullable Algorithm algorithm, @Nullable String key,
			MissingKey missingKey, long cost, String source, boolean shadow, boolean beanMethod) {
		Algorithm chosen = (algorithm != null) ? algorithm : this.defaultAlgorithm;
		// no definitions: a rule of work in flight only, which withConcurrency checks
		List<RateLimit> limits = definitions.isEmpty() ? List.of() : checkedLimits(name, definitions, chosen, cost);
		String keySpec = (key == null || key.isBlank()) ? "ip" : key.strip();
		return RateLimitRule.builder(name, limits, chosen, checkKey(name, keySpec, beanMethod), source)
			.paths(patterns, methods)
			.missingKey(missingKey)
			.cost(cost)
			.shadow(shadow)
			.build();
	}

	private static List<RateLimit> checkedLimits(String name, List<LimitDefinition> definitions, Algorithm algorithm,
			long cost) {
		List<RateLimit> limits = new ArrayList<>();
		for (LimitDefinition definition : definitions) {
			limits.add(definition.toRateLimit(name));
		}
		try {
			algorithm.check(limits, cost);
		}
		catch (InvalidRateLimitException ex) {
			throw invalid(name, ex, definitions, limits, cost);
		}
		return limits;
	}

	/**
	 * Checks that a calendar quota has one limit and no window, blocks no key and counts in fixed windows, as
	 * properties and annotations give it.
	 * @param rule the rule's name
	 * @param period the quota's period
	 * @param window the window given beside the period, or {@code null}
	 * @param severalOrBurst whether several limits or a burst are given beside the period
	 * @param blockFor the block given beside the period, or {@code null}
	 * @param algorithm the algorithm given, or {@code null} for none
	 * @throws InvalidRateLimitRuleException naming {@code window}, {@code period}, {@code block-for} or
	 * {@code algorithm} when the quota has one of them wrong
	 */
	public static void checkQuota(String rule, CalendarPeriod period, @Nullable Object window, boolean severalOrBurst,
			@Nullable Object blockFor, @Nullable Algorithm algorithm) {
		String name = period.name().toLowerCase(Locale.ROOT);
		if (window != null) {
			throw new InvalidRateLimitRuleException(rule, "window", window,
					"a rule with a period (" + name + ") counts per calendar period; remove the window");
		}
		if (severalOrBurst) {
			throw new InvalidRateLimitRuleException(rule, "period", name,
					"a calendar quota has one limit per period; remove the several limits and the burst");
		}
		if (blockFor != null) {
			throw new InvalidRateLimitRuleException(rule, "block-for", blockFor,
					"a calendar quota refuses a spent budget until its period ends; remove the block, or use a rolling "
							+ "window instead of the period");
		}
		if (algorithm != null && algorithm != Algorithm.FIXED_WINDOW) {
			throw new InvalidRateLimitRuleException(rule, "algorithm", algorithm.id(),
					"a calendar quota counts in fixed windows, the calendar's; remove the algorithm or use fixed-window");
		}
	}

	/**
	 * Returns a rule whose requests reserve their {@code cost} before the work and settle with the actual cost after
	 * it.
	 * @param rule the rule
	 * @param source where the actual cost is read, or {@code null} when it is known before
	 * @return the rule
	 * @throws InvalidRateLimitRuleException naming {@code cost-from} when the rule cannot settle costs
	 */
	public RateLimitRule withCostFrom(RateLimitRule rule, @Nullable ResponseCost source) {
		if (source == null) {
			return rule;
		}
		String spelling = (source instanceof ResponseCost.Header header) ? "header:" + header.name()
				: ((ResponseCost.Result) source).expression();
		if (rule.limits().isEmpty()) {
			throw new InvalidRateLimitRuleException(rule.name(), "cost-from", spelling,
					"a cost is charged under the rule's limits, and it has none; set limit and window too");
		}
		if (rule.countStatuses() != null) {
			throw new InvalidRateLimitRuleException(rule.name(), "cost-from", spelling,
					"a rule charges by status (count-statuses) or by actual cost, not both; put them in two rules");
		}
		return rule.toBuilder().costFrom(source).build();
	}

	/**
	 * Returns a rule that also limits how many requests per key are in flight at once, across every instance: a
	 * request holds a slot from its decision until its response completes, under a lease that is renewed while it
	 * runs, so that the slots of an instance that crashed come back when their leases end.
	 * @param rule the rule, without limits when it limits work in flight only
	 * @param limit how many requests per key may be in flight, or {@code null} for no such limit
	 * @param lease how long a slot is held without a renewal, or {@code null} for a minute
	 * @return the rule
	 * @throws InvalidRateLimitRuleException naming {@code concurrency} or {@code concurrency-lease} when one is
	 * invalid, or {@code limit} when the rule has neither limits nor a concurrency
	 */
	public RateLimitRule withConcurrency(RateLimitRule rule, @Nullable Long limit, @Nullable Duration lease) {
		if (limit != null && rule.limits().isEmpty() && rule.cost() != 1) {
			throw new InvalidRateLimitRuleException(rule.name(), "cost", rule.cost(),
					"the rule limits requests in flight only (concurrency, no limit): a request takes one slot and "
							+ "no permits, so a cost means nothing; remove cost, or set limit and window so that the "
							+ "cost is charged under them beside the slot");
		}
		if (limit == null) {
			if (rule.limits().isEmpty()) {
				throw new InvalidRateLimitRuleException(rule.name(), "limit", null,
						"set it to the permits per window, at least 1 (or concurrency, to limit requests in flight only)");
			}
			if (lease != null) {
				throw new InvalidRateLimitRuleException(rule.name(), "concurrency-lease", RateLimit.label(lease),
						"it is the lease of a request's slot, and the rule limits no requests in flight; set concurrency too");
			}
			return rule;
		}
		if (limit < 1) {
			throw new InvalidRateLimitRuleException(rule.name(), "concurrency", limit,
					"set it to how many requests per key may be in flight at once, at least 1");
		}
		Duration held = (lease != null) ? lease : DEFAULT_CONCURRENCY_LEASE;
		if (held.compareTo(MIN_CONCURRENCY_LEASE) < 0 || held.compareTo(RateLimit.MAX_WINDOW) > 0) {
			throw new InvalidRateLimitRuleException(rule.name(), "concurrency-lease", RateLimit.label(held),
					"a slot's lease must be from 1s (it is renewed every half lease while the request runs) to 36500d");
		}
		if (rule.countStatuses() != null) {
			throw new InvalidRateLimitRuleException(rule.name(), "concurrency", limit,
					"a rule that counts responses by status charges after the response, and a slot is held during it; "
							+ "put the concurrency on a rule of its own");
		}
		return rule.toBuilder().concurrency(RateLimit.of(limit, held)).build();
	}

	/**
	 * Returns a rule whose refusals wait for a permit instead, up to a bound ({@code max-wait}): the call waits for the
	 * retry time the limiter gives, then is decided again, and is refused as before when the permit would come after
	 * the bound, or when {@code maxWaiting} calls already wait for the rule in this instance.
	 * @param rule the rule
	 * @param maxWait the longest a call waits in all, or {@code null} to refuse at once
	 * @param maxWaiting how many calls may wait at once for the rule in one instance, or {@code null} for
	 * {@value WaitPolicy#DEFAULT_MAX_WAITING}
	 * @return the rule
	 * @throws InvalidRateLimitRuleException naming {@code max-wait} or {@code max-waiting} when one is invalid or
	 * means nothing for the rule
	 */
	public RateLimitRule withWaiting(RateLimitRule rule, @Nullable Duration maxWait, @Nullable Integer maxWaiting) {
		if (maxWait == null) {
			if (maxWaiting != null) {
				throw new InvalidRateLimitRuleException(rule.name(), "max-waiting", maxWaiting,
						"it bounds how many calls wait for a permit, and the rule makes none wait; set max-wait too");
			}
			return rule;
		}
		if (maxWait.isNegative() || maxWait.isZero() || maxWait.compareTo(RateLimit.MAX_WINDOW) > 0) {
			throw new InvalidRateLimitRuleException(rule.name(), "max-wait", RateLimit.label(maxWait),
					"set it to the longest a refused call waits for a permit, such as 500ms or 2s (more than zero); "
							+ "remove it to refuse at once");
		}
		if (maxWaiting != null && maxWaiting < 1) {
			throw new InvalidRateLimitRuleException(rule.name(), "max-waiting", maxWaiting,
					"set it to how many calls may wait at once for the rule in one instance, at least 1 (default "
							+ WaitPolicy.DEFAULT_MAX_WAITING + ")");
		}
		if (rule.neverRefuses()) {
			throw new InvalidRateLimitRuleException(rule.name(), "max-wait", RateLimit.label(maxWait),
					"the rule never refuses a call (" + (rule.shadow() ? "shadow" : "enforce false")
							+ "), so none waits; remove max-wait, or enforce the rule");
		}
		return rule.toBuilder()
			.waiting(new WaitPolicy(maxWait, (maxWaiting != null) ? maxWaiting : WaitPolicy.DEFAULT_MAX_WAITING))
			.build();
	}

	/**
	 * Returns a rule whose refusals block the refused key for a while.
	 * @param rule the rule
	 * @param blockFor how long a first block lasts, or {@code null} for no blocks
	 * @param multiplier how much longer each block that follows within {@code blockFor} of the previous
	 * one lasts, or {@code null} for 1
	 * @param max the longest block, or {@code null} for {@code blockFor}
	 * @return the rule
	 * @throws InvalidRateLimitRuleException naming {@code block-for}, {@code block-multiplier} or
	 * {@code block-max} when one is invalid, or given without {@code block-for}
	 */
	public RateLimitRule withBlock(RateLimitRule rule, @Nullable Duration blockFor, @Nullable Double multiplier,
			@Nullable Duration max) {
		if (blockFor == null) {
			if (multiplier != null) {
				throw new InvalidRateLimitRuleException(rule.name(), "block-multiplier", multiplier,
						"it grows blocks, and the rule has none; set block-for too");
			}
			if (max != null) {
				throw new InvalidRateLimitRuleException(rule.name(), "block-max", RateLimit.label(max),
						"it caps blocks, and the rule has none; set block-for too");
			}
			return rule;
		}
		double growth = (multiplier != null) ? multiplier : 1;
		Duration longest = (max != null) ? max : (growth > 1) ? RateLimit.MAX_WINDOW : blockFor;
		try {
			return rule.toBuilder().block(new BlockPolicy(blockFor, growth, longest)).build();
		}
		catch (InvalidRateLimitException ex) {
			String attribute = switch (ex.getArgument()) {
				case "multiplier" -> "block-multiplier";
				case "max" -> "block-max";
				default -> "block-for";
			};
			Object value = switch (attribute) {
				case "block-multiplier" -> growth;
				case "block-max" -> RateLimit.label(longest);
				default -> RateLimit.label(blockFor);
			};
			throw new InvalidRateLimitRuleException(rule.name(), attribute, value, ex.getReason());
		}
	}

	/**
	 * Returns a rule with paths it skips and a condition bean that decides whether it applies.
	 * @param rule the rule
	 * @param excludePaths Spring path patterns inside the rule's paths that it does not apply to
	 * @param condition {@code bean:<name>} of a condition bean, or {@code null}
	 * @param conditions which beans are conditions of this web stack
	 * @param countStatuses the response statuses the rule charges after the response, empty to charge every
	 * request before its handler
	 * @return the rule
	 * @throws InvalidRateLimitRuleException when a pattern or the condition is invalid
	 */
	public RateLimitRule withScope(RateLimitRule rule, List<String> excludePaths, @Nullable String condition,
			KeyResolvers conditions, List<String> countStatuses) {
		if (excludePaths.isEmpty() && (condition == null || condition.isBlank()) && countStatuses.isEmpty()) {
			return rule;
		}
		ResponseStatuses statuses = null;
		if (!countStatuses.isEmpty()) {
			try {
				statuses = ResponseStatuses.parse(countStatuses);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidRateLimitRuleException(rule.name(), "count-statuses", String.join(",", countStatuses),
						String.valueOf(ex.getMessage()));
			}
		}
		List<PathPattern> excluded = new ArrayList<>();
		for (String path : excludePaths) {
			checkLeadingSlash(rule.name(), "exclude-paths", path);
			try {
				excluded.add(PathPatternParser.defaultInstance.parse(path.strip()));
			}
			catch (PatternParseException ex) {
				throw new InvalidRateLimitRuleException(rule.name(), "exclude-paths", path,
						ex.toDetailedString().replace('\n', ' ') + "; use Spring path patterns such as /api/health");
			}
		}
		String bean = null;
		if (condition != null && !condition.isBlank()) {
			String spec = condition.strip();
			bean = spec.startsWith("bean:") ? spec.substring("bean:".length()).strip() : "";
			if (bean.isEmpty()) {
				throw new InvalidRateLimitRuleException(rule.name(), "condition", spec,
						"name a condition bean as bean:<name>");
			}
			if (!conditions.exists(bean)) {
				throw new InvalidRateLimitRuleException(rule.name(), "condition", spec, "there is no bean named '" + bean
						+ "' implementing " + conditions.type() + "; declare one or fix the name");
			}
		}
		return rule.toBuilder().excludePaths(excluded).condition(bean).countStatuses(statuses).build();
	}

	/**
	 * Returns a rule with plans, each plan's limits checked as the rule's own are.
	 * @param rule the rule
	 * @param plan how a request's plan is found: {@code bean:<name>} (a {@code RateLimitPlanResolver}) or
	 * {@code header:<Name>}
	 * @param plans each plan's limits as configured, by plan name; their prefixes name them in messages
	 * @param planResolverExists whether a plan resolver bean of a name exists
	 * @return the rule with its plans
	 * @throws InvalidRateLimitRuleException when the plans are invalid
	 */
	public RateLimitRule withPlans(RateLimitRule rule, @Nullable String plan, Map<String, List<LimitDefinition>> plans,
			java.util.function.Predicate<String> planResolverExists) {
		if (plans.isEmpty() && (plan == null || plan.isBlank())) {
			return rule;
		}
		String spec = (plan != null) ? plan.strip() : "";
		PlanSource source = PlanSource.parse(spec);
		if (source == null) {
			throw new InvalidRateLimitRuleException(rule.name(), "plan", spec.isEmpty() ? null : spec,
					"say how a request's plan is found: bean:<name> (a RateLimitPlanResolver bean) or header:<Name>");
		}
		if (source instanceof PlanSource.Bean bean && !planResolverExists.test(bean.name())) {
			throw new InvalidRateLimitRuleException(rule.name(), "plan", spec, "there is no bean named '" + bean.name()
					+ "' implementing dev.ratelimit.RateLimitPlanResolver; declare one or fix the name");
		}
		if (plans.isEmpty()) {
			throw new InvalidRateLimitRuleException(rule.name(), "plans", null,
					"give the limits of at least one plan, such as plans.pro.limit and plans.pro.window");
		}
		Map<String, List<RateLimit>> checked = new java.util.LinkedHashMap<>();
		for (Map.Entry<String, List<LimitDefinition>> entry : plans.entrySet()) {
			if (entry.getKey().equals("unlimited")) {
				throw new InvalidRateLimitRuleException(rule.name(), "plans.unlimited", null,
						"'unlimited' is the plan that exempts a key and takes no limits; remove them");
			}
			checked.put(entry.getKey(), List.copyOf(checkedLimits(rule.name(), entry.getValue(), rule.algorithm(),
					rule.cost())));
		}
		return rule.toBuilder().plans(source, checked).build();
	}

	private static InvalidRateLimitRuleException invalid(String rule, InvalidRateLimitException ex,
			List<LimitDefinition> definitions, List<RateLimit> limits, long cost) {
		String argument = ex.getArgument();
		if (argument.equals("permits")) {
			return new InvalidRateLimitRuleException(rule, "cost", cost, "cost " + ex.getReason());
		}
		int index = Math.max(ex.getIndex(), 0);
		RateLimit limit = limits.get(index);
		String attribute = argument.equals("limits") ? "window" : argument;
		Object value = switch (attribute) {
			case "window" -> format(limit.window());
			case "burst" -> limit.burst();
			default -> limit.limit();
		};
		return new InvalidRateLimitRuleException(rule, definitions.get(index).prefix() + attribute, value,
				String.valueOf(ex.getMessage()));
	}

	private RuleKey checkKey(String rule, String spec, boolean beanMethod) {
		RuleKey key = RuleKey.parse(spec);
		if (key instanceof RuleKey.Expression && !beanMethod) {
			throw new InvalidRateLimitRuleException(rule, "key", spec, "a SpEL key reads a method's arguments, which "
					+ "only @RateLimited methods of beans have; " + KEY_FORMS);
		}
		if (key == null) {
			int colon = spec.indexOf(':');
			String kind = (colon < 0) ? spec : spec.substring(0, colon);
			// header:, param: or bean: with nothing after the colon
			boolean namesNothing = colon >= 0 && RuleKey.parse(kind + ":x") != null;
			throw new InvalidRateLimitRuleException(rule, "key", spec,
					namesNothing ? "name the " + kind + " after the ':'; " + KEY_FORMS : KEY_FORMS);
		}
		if (key instanceof RuleKey.Bean bean && !this.keyResolvers.exists(bean.name())) {
			throw new InvalidRateLimitRuleException(rule, "key", spec, "there is no bean named '" + bean.name()
					+ "' implementing " + this.keyResolvers.type() + "; declare one or fix the name");
		}
		return key;
	}

	static void checkName(String name) {
		if (!NAME.matcher(name).matches()) {
			throw new InvalidRateLimitRuleException(name, "name", name,
					"use 1 to 100 letters, digits, '.', '_' or '-'");
		}
	}

	private static PathPattern parsePath(String rule, String path) {
		checkLeadingSlash(rule, "paths", path);
		try {
			return PathPatternParser.defaultInstance.parse(path.strip());
		}
		catch (PatternParseException ex) {
			throw new InvalidRateLimitRuleException(rule, "paths", path,
					ex.toDetailedString().replace('\n', ' ') + "; use Spring path patterns such as /api/**");
		}
	}

	/**
	 * Refuses a path pattern that can never match: a request's path, within the application, always starts with
	 * {@code /}, and a pattern without it (such as {@code api/greeting}) would leave the rule silently doing nothing.
	 */
	private static void checkLeadingSlash(String rule, String attribute, String path) {
		String pattern = path.strip();
		if (!pattern.startsWith("/")) {
			throw new InvalidRateLimitRuleException(rule, attribute, path,
					"a path pattern starts with '/' (paths are matched within the application, from its root), so '"
							+ pattern + "' never matches any request; write /" + pattern);
		}
	}

	private static Set<String> methods(String rule, List<String> methods) {
		Set<String> result = new LinkedHashSet<>();
		for (String method : methods) {
			String upper = method.strip().toUpperCase(Locale.ROOT);
			if (!METHODS.contains(upper)) {
				throw new InvalidRateLimitRuleException(rule, "methods", method,
						"use HTTP methods such as GET, POST, PUT, PATCH, DELETE");
			}
			result.add(upper);
		}
		return Set.copyOf(result);
	}

}

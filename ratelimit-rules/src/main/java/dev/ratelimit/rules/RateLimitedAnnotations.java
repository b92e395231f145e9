package dev.ratelimit.rules;

import java.lang.reflect.Method;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimited;

import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Reads the {@link RateLimited} annotations of a method and its class into rules, each named after where it was
 * found unless it names itself, every option as its property would set it, every mistake an
 * {@link InvalidRateLimitRuleException} that names the method. A web handler's limits are decided before its
 * arguments are read, so SpEL keys and costs and fallback methods are for the methods of other beans.
 */
final class RateLimitedAnnotations {

	private final RateLimitRuleFactory factory;

	RateLimitedAnnotations(RateLimitRuleFactory factory) {
		this.factory = factory;
	}

	/**
	 * Returns the rules of the annotations on a handler method and its class, class-level first.
	 */
	List<RateLimitRule> forHandler(Method method, Class<?> beanType) {
		return read(method, beanType, false).rules();
	}

	/**
	 * Returns the limits of the annotations on a bean method and its class, class-level first.
	 */
	MethodLimits forBeanMethod(Method method, Class<?> beanType) {
		return read(method, beanType, true);
	}

	private MethodLimits read(Method method, Class<?> beanType, boolean beanMethod) {
		List<RateLimitRule> rules = new ArrayList<>();
		Map<String, String> costs = new LinkedHashMap<>();
		String fallback = null;
		String className = sanitize(beanType.getSimpleName());
		String methodName = className + "." + sanitize(method.getName());
		try {
			int index = 0;
			List<Read> found = new ArrayList<>();
			for (RateLimited annotation : AnnotatedElementUtils.findMergedRepeatableAnnotations(beanType,
					RateLimited.class)) {
				found.add(new Read(annotation, defaultName(className, ++index), "@RateLimited on " + beanType.getName()));
			}
			index = 0;
			for (RateLimited annotation : AnnotatedElementUtils.findMergedRepeatableAnnotations(method,
					RateLimited.class)) {
				found.add(new Read(annotation, defaultName(methodName, ++index), "@RateLimited on " + signature(method)));
			}
			for (Read each : found) {
				RateLimited annotation = each.annotation();
				String name = annotation.name().isEmpty() ? each.defaultName() : annotation.name();
				String cost = annotation.cost().strip();
				boolean costExpression = cost.startsWith("#");
				if (!beanMethod) {
					onBeanMethodsOnly(name, "key", annotation.key(), annotation.key().strip().startsWith("#"));
					onBeanMethodsOnly(name, "cost", cost, costExpression);
					onBeanMethodsOnly(name, "fallbackMethod", annotation.fallbackMethod(),
							!annotation.fallbackMethod().isEmpty());
					onBeanMethodsOnly(name, "costFrom", annotation.costFrom(), !annotation.costFrom().isEmpty());
				}
				if (costExpression) {
					costs.put(name, cost);
				}
				if (!annotation.fallbackMethod().isEmpty()) {
					if (fallback != null && !fallback.equals(annotation.fallbackMethod())) {
						throw new InvalidRateLimitRuleException(name, "fallbackMethod", annotation.fallbackMethod(),
								"another @RateLimited of the method names '" + fallback
										+ "'; a call has one fallback, so name the same method in each or in one only");
					}
					fallback = annotation.fallbackMethod();
				}
				RateLimitRule rule = fromAnnotation(annotation, name, costExpression ? 1 : cost(name, cost), each.source());
				if (costExpression && rule.limits().isEmpty()) {
					throw new InvalidRateLimitRuleException(name, "cost", cost,
							"the rule limits calls in flight only (concurrency, no limit): a call takes one slot and no "
									+ "permits, so a cost means nothing; remove cost, or set limit and window so that "
									+ "the cost is charged under them beside the slot");
				}
				rules.add(rule);
			}
		}
		catch (InvalidRateLimitRuleException ex) {
			throw new InvalidRateLimitRuleException(ex.getRule() + " (@RateLimited on " + beanType.getName() + "."
					+ signature(method).substring(method.getDeclaringClass().getName().length() + 1) + ")",
					annotationAttribute(ex.getAttribute()), ex.getValue(), ex.getReason());
		}
		return new MethodLimits(rules, costs, fallback);
	}

	/**
	 * Returns the annotation's name of an attribute that the factory names as its property: {@code blockFor} for
	 * {@code block-for}.
	 */
	private static String annotationAttribute(String property) {
		StringBuilder name = new StringBuilder(property.length());
		boolean upper = false;
		for (char c : property.toCharArray()) {
			if (c == '-') {
				upper = true;
			}
			else {
				name.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return name.toString();
	}

	private static void onBeanMethodsOnly(String rule, String attribute, String value, boolean used) {
		if (used) {
			throw new InvalidRateLimitRuleException(rule, attribute, value,
					"a web handler's limits are decided before its arguments are read, so a SpEL " + attribute
							+ " or a fallback method works on the methods of other beans only; key the handler by ip, "
							+ "header:<Name>, param:<name>, principal or bean:<name>, or put the limit on the service "
							+ "method it calls (its refusal is answered with 429)");
		}
	}

	private static long cost(String rule, String text) {
		try {
			return Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			throw new InvalidRateLimitRuleException(rule, "cost", text,
					"give the permits a call takes as a number, or on a bean method a SpEL expression starting with #");
		}
	}

	private RateLimitRule fromAnnotation(RateLimited annotation, String name, long cost, String source) {
		RateLimitRuleFactory.checkName(name);
		CalendarPeriod period = annotation.period().isEmpty() ? null : period(name, annotation.period());
		List<LimitDefinition> limits;
		if (period != null) {
			RateLimitRuleFactory.checkQuota(name, period, annotation.window().isEmpty() ? null : annotation.window(),
					annotation.limits().length > 0 || annotation.burst() != 0,
					annotation.blockFor().isEmpty() ? null : annotation.blockFor(),
					annotation.algorithm().isEmpty() ? null : RateLimitRuleFactory.parseAlgorithm(name, annotation.algorithm()));
			limits = List.of(new LimitDefinition("", (annotation.limit() != 0) ? annotation.limit() : null,
					period.longest(), null));
		}
		else if (annotation.concurrency() != 0 && annotation.limit() == 0 && annotation.window().isEmpty()
				&& annotation.burst() == 0 && annotation.limits().length == 0 && annotation.plans().length == 0) {
			// calls in flight only: withConcurrency checks it
			limits = List.of();
		}
		else {
			limits = limits(name, "", annotation.limit(), annotation.window(), annotation.burst(), annotation.limits());
		}
		Algorithm algorithm = (period != null) ? Algorithm.FIXED_WINDOW
				: annotation.algorithm().isEmpty() ? null : RateLimitRuleFactory.parseAlgorithm(name, annotation.algorithm());
		boolean shadow = annotation.shadow().isEmpty() ? this.factory.shadow() : shadow(name, annotation.shadow());
		RateLimitRule rule = this.factory.build(name, List.of(), Set.of(), limits, algorithm, annotation.key(),
				missingKey(name, annotation.missingKey()), cost, source, shadow, true);
		Map<String, List<LimitDefinition>> plans = new LinkedHashMap<>();
		for (RateLimited.Plan plan : annotation.plans()) {
			String prefix = "plans." + plan.name() + ".";
			Duration planWindow = (period != null && plan.window().isEmpty()) ? period.longest() : null;
			List<LimitDefinition> planLimits = limits(name, prefix, plan.limit(), plan.window(), plan.burst(),
					plan.limits());
			if (planWindow != null) {
				planLimits = planLimits.stream()
					.map((limit) -> new LimitDefinition(limit.prefix(), limit.limit(), planWindow, limit.burst()))
					.toList();
			}
			if (plans.put(plan.name(), planLimits) != null) {
				throw new InvalidRateLimitRuleException(name, "plans", plan.name(), "two plans have this name; give each "
						+ "plan its own");
			}
		}
		rule = this.factory.withPlans(rule, annotation.plan().isEmpty() ? null : annotation.plan(), plans,
				this.factory.planResolvers());
		rule = this.factory.withBlock(rule, annotation.blockFor().isEmpty() ? null
				: duration(name, "blockFor", annotation.blockFor()),
				(annotation.blockMultiplier() != 0) ? annotation.blockMultiplier() : null,
				annotation.blockMax().isEmpty() ? null : duration(name, "blockMax", annotation.blockMax()));
		rule = this.factory.withCostFrom(rule,
				annotation.costFrom().isBlank() ? null : new ResponseCost.Result(annotation.costFrom().strip()));
		rule = this.factory.withConcurrency(rule, (annotation.concurrency() != 0) ? annotation.concurrency() : null,
				annotation.concurrencyLease().isEmpty() ? null
						: duration(name, "concurrencyLease", annotation.concurrencyLease()));
		RateLimitRule.Builder builder = rule.toBuilder();
		if (period != null) {
			builder.period(period, annotation.zone().isEmpty() ? java.time.ZoneOffset.UTC : zone(name, annotation.zone()));
		}
		else if (!annotation.zone().isEmpty()) {
			throw new InvalidRateLimitRuleException(name, "zone", annotation.zone(),
					"a zone places a calendar quota's boundaries, and the rule has no period; set period too, or remove it");
		}
		if (!annotation.enforce().isEmpty()) {
			builder.enforce(flag(name, "enforce", annotation.enforce()));
		}
		if (annotation.allowKeys().length > 0) {
			builder.allowKeys(new LinkedHashSet<>(List.of(annotation.allowKeys())));
		}
		if (annotation.prefetch() != 0) {
			builder.prefetch(annotation.prefetch());
		}
		return this.factory.withWaiting(builder.build(),
				annotation.maxWait().isEmpty() ? null : duration(name, "maxWait", annotation.maxWait()),
				(annotation.maxWaiting() != 0) ? annotation.maxWaiting() : null);
	}

	private static List<LimitDefinition> limits(String name, String prefix, long limit, String window, long burst,
			RateLimited.Limit[] several) {
		List<LimitDefinition> limits = new ArrayList<>();
		if (several.length > 0) {
			if (limit != 0 || !window.isEmpty() || burst != 0) {
				throw new InvalidRateLimitRuleException(name, prefix + "limits", several.length + " limits",
						"give either limit and window or limits, not both");
			}
			for (int i = 0; i < several.length; i++) {
				RateLimited.Limit each = several[i];
				String at = prefix + "limits[" + i + "].";
				limits.add(new LimitDefinition(at, each.limit(), duration(name, at + "window", each.window()),
						(each.burst() != 0) ? each.burst() : null));
			}
			return limits;
		}
		limits.add(new LimitDefinition(prefix, (limit != 0) ? limit : null,
				window.isEmpty() ? null : duration(name, prefix + "window", window), (burst != 0) ? burst : null));
		return limits;
	}

	private static Duration duration(String rule, String attribute, String text) {
		try {
			return Durations.parse(text);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(rule, attribute, text,
					"not a duration; use a form such as 500ms, 30s, 1m, 1h or PT1M");
		}
	}

	private static CalendarPeriod period(String rule, String text) {
		try {
			return CalendarPeriod.valueOf(text.strip().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(rule, "period", text, "use day, week or month");
		}
	}

	private static ZoneId zone(String rule, String text) {
		try {
			return ZoneId.of(text.strip());
		}
		catch (DateTimeException ex) {
			throw new InvalidRateLimitRuleException(rule, "zone", text,
					"not a time zone; use a region id such as Europe/Madrid or an offset such as +02:00");
		}
	}

	private static boolean shadow(String rule, String text) {
		return flag(rule, "shadow", text);
	}

	private static boolean flag(String rule, String attribute, String text) {
		return switch (text.strip().toLowerCase(Locale.ROOT)) {
			case "true" -> true;
			case "false" -> false;
			default -> throw new InvalidRateLimitRuleException(rule, attribute, text, "use \"true\" or \"false\", or leave it empty for "
					+ (attribute.equals("shadow") ? "ratelimit.shadow" : "true"));
		};
	}

	private static MissingKey missingKey(String rule, String text) {
		return switch (text.strip().toLowerCase(Locale.ROOT)) {
			case "", "client-address" -> MissingKey.CLIENT_ADDRESS;
			case "reject" -> MissingKey.REJECT;
			case "skip" -> MissingKey.SKIP;
			default -> throw new InvalidRateLimitRuleException(rule, "missingKey", text,
					"use client-address, reject or skip");
		};
	}

	/**
	 * Returns a method's class, name and parameter types, so that overloads, which get the same default
	 * rule name, are told apart: two of them both annotated without a name stop the application.
	 */
	static String signature(Method method) {
		StringBuilder signature = new StringBuilder(method.getDeclaringClass().getName()).append('.')
			.append(method.getName())
			.append('(');
		Class<?>[] parameters = method.getParameterTypes();
		for (int i = 0; i < parameters.length; i++) {
			signature.append((i > 0) ? ", " : "").append(parameters[i].getSimpleName());
		}
		return signature.append(')').toString();
	}

	private static String defaultName(String base, int index) {
		return (index == 1) ? base : base + "-" + index;
	}

	private static String sanitize(String javaName) {
		String cleaned = javaName.replaceAll("[^A-Za-z0-9._-]", "_");
		return (cleaned.length() > 48) ? cleaned.substring(0, 48) : cleaned;
	}

	private record Read(RateLimited annotation, String defaultName, String source) {
	}

}

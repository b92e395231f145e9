package dev.ratelimit.web;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimited;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Reads the {@link RateLimited} annotations of a handler method and its class into rules, each named after
 * where it was found unless it names itself, every mistake an {@link InvalidRateLimitRuleException} that names
 * the method.
 */
final class HandlerAnnotations {

	private final RateLimitRuleFactory factory;

	HandlerAnnotations(RateLimitRuleFactory factory) {
		this.factory = factory;
	}

	/**
	 * Returns the rules of the annotations on a handler method and its class, class-level first.
	 */
	List<RateLimitRule> rules(Method method, Class<?> beanType) {
		List<RateLimitRule> rules = new ArrayList<>();
		String className = sanitize(beanType.getSimpleName());
		String methodName = className + "." + sanitize(method.getName());
		try {
			int index = 0;
			for (RateLimited annotation : AnnotatedElementUtils.findMergedRepeatableAnnotations(beanType,
					RateLimited.class)) {
				rules.add(fromAnnotation(annotation, defaultName(className, ++index),
						"@RateLimited on " + beanType.getName()));
			}
			index = 0;
			for (RateLimited annotation : AnnotatedElementUtils.findMergedRepeatableAnnotations(method,
					RateLimited.class)) {
				rules.add(fromAnnotation(annotation, defaultName(methodName, ++index), "@RateLimited on "
						+ signature(method)));
			}
		}
		catch (InvalidRateLimitRuleException ex) {
			throw new InvalidRateLimitRuleException(ex.getRule() + " (@RateLimited on " + beanType.getName() + "."
					+ signature(method).substring(method.getDeclaringClass().getName().length() + 1) + ")",
					ex.getAttribute(), ex.getValue(), ex.getReason());
		}
		return rules;
	}

	private RateLimitRule fromAnnotation(RateLimited annotation, String defaultName, String source) {
		String name = annotation.name().isEmpty() ? defaultName : annotation.name();
		RateLimitRuleFactory.checkName(name);
		List<LimitDefinition> limits = new ArrayList<>();
		if (annotation.limits().length > 0) {
			if (annotation.limit() != 0 || !annotation.window().isEmpty() || annotation.burst() != 0) {
				throw new InvalidRateLimitRuleException(name, "limits", annotation.limits().length + " limits",
						"give either limit and window or limits, not both");
			}
			for (int i = 0; i < annotation.limits().length; i++) {
				RateLimited.Limit limit = annotation.limits()[i];
				String prefix = "limits[" + i + "].";
				limits.add(new LimitDefinition(prefix, limit.limit(), window(name, prefix, limit.window()),
						(limit.burst() != 0) ? limit.burst() : null));
			}
		}
		else {
			limits.add(new LimitDefinition("", (annotation.limit() != 0) ? annotation.limit() : null,
					annotation.window().isEmpty() ? null : window(name, "", annotation.window()),
					(annotation.burst() != 0) ? annotation.burst() : null));
		}
		Algorithm algorithm = annotation.algorithm().isEmpty() ? null
				: RateLimitRuleFactory.parseAlgorithm(name, annotation.algorithm());
		return this.factory.build(name, List.of(), Set.of(), limits, algorithm, annotation.key(),
				MissingKey.CLIENT_ADDRESS, annotation.cost(), source, this.factory.shadow());
	}

	private static Duration window(String rule, String prefix, String text) {
		try {
			return DurationStyle.detectAndParse(text);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(rule, prefix + "window", text,
					"not a duration; use a form such as 500ms, 30s, 1m, 1h or PT1M");
		}
	}

	/**
	 * Returns a method's class, name and parameter types, so that overloads, which get the same default
	 * rule name, are told apart: two of them both annotated without a name stop the application.
	 */
	private static String signature(Method method) {
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

}

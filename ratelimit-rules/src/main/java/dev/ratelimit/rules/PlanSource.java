package dev.ratelimit.rules;

import org.jspecify.annotations.Nullable;

/**
 * Where the plan of a request under a rule with plans comes from: read once from the rule's
 * {@code plan}.
 *
 * @since 0.1.0
 */
public sealed interface PlanSource {

	/**
	 * Returns the name of the bean or the header.
	 * @return the name
	 */
	String name();

	/**
	 * Returns the plan as it is configured, such as {@code bean:plans}.
	 * @return the plan's spelling
	 */
	default String spelling() {
		return ((this instanceof Bean) ? "bean:" : "header:") + name();
	}

	/**
	 * Reads a plan source as configured: {@code bean:<name>} or {@code header:<Name>}.
	 * @param spelling the plan, stripped
	 * @return the source, or {@code null} when it is neither form or names nothing after the {@code :}
	 */
	static @Nullable PlanSource parse(String spelling) {
		int colon = spelling.indexOf(':');
		String argument = (colon < 0) ? "" : spelling.substring(colon + 1).strip();
		if (argument.isEmpty()) {
			return null;
		}
		return switch (spelling.substring(0, colon)) {
			case "bean" -> new Bean(argument);
			case "header" -> new Header(argument);
			default -> null;
		};
	}

	/**
	 * A {@code RateLimitPlanResolver} bean, given the rule and the request's key, {@code bean:<name>}.
	 *
	 * @param name the bean's name
	 */
	record Bean(String name) implements PlanSource {
	}

	/**
	 * A header set by a trusted proxy, {@code header:<Name>}: believed only on requests that came through
	 * one of {@code ratelimit.trusted-proxies}, and only when it names one of the rule's plans.
	 *
	 * @param name the header's name
	 */
	record Header(String name) implements PlanSource {
	}

}

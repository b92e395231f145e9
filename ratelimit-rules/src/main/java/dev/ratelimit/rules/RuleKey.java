package dev.ratelimit.rules;

import org.jspecify.annotations.Nullable;

/**
 * Whose budget a request charges under a rule: read once from the rule's {@code key} (a property, an
 * annotation's attribute or a route's), so that nothing past that reads the string again.
 *
 * @since 0.1.0
 */
public sealed interface RuleKey {

	/**
	 * Returns the kind, as budget ids and the endpoint name it: {@code ip}, {@code header}, {@code param},
	 * {@code principal}, {@code bean}, {@code resolver} or {@code expression}.
	 * @return the kind
	 */
	String kind();

	/**
	 * Returns what the key names after the {@code :}: a header, a parameter or a bean.
	 * @return the name, or {@code null} for a key that names nothing
	 */
	default @Nullable String name() {
		return null;
	}

	/**
	 * Returns the key as it is configured, such as {@code header:X-Api-Key}.
	 * @return the key's spelling
	 */
	default String spelling() {
		String name = name();
		return (name != null) ? kind() + ":" + name : kind();
	}

	/**
	 * Reads a key as configured: {@code ip}, {@code header:<Name>}, {@code param:<name>},
	 * {@code principal}, {@code bean:<name>}, or a SpEL expression over a method's arguments that starts with
	 * {@code #}.
	 * @param spelling the key, stripped
	 * @return the key, or {@code null} when it is none of these forms or names nothing after the
	 * {@code :}
	 */
	static @Nullable RuleKey parse(String spelling) {
		if (spelling.startsWith("#")) {
			return (spelling.length() > 1) ? new Expression(spelling) : null;
		}
		int colon = spelling.indexOf(':');
		if (colon < 0) {
			return switch (spelling) {
				case "ip" -> new ClientAddress();
				case "principal" -> new Principal();
				default -> null;
			};
		}
		String argument = spelling.substring(colon + 1).strip();
		if (argument.isEmpty()) {
			return null;
		}
		return switch (spelling.substring(0, colon)) {
			case "header" -> new Header(argument);
			case "param" -> new Param(argument);
			case "bean" -> new Bean(argument);
			default -> null;
		};
	}

	/** The request's client address, {@code ip}. */
	record ClientAddress() implements RuleKey {

		@Override
		public String kind() {
			return "ip";
		}

	}

	/**
	 * A request header's value, {@code header:<Name>}.
	 *
	 * @param name the header's name
	 */
	record Header(String name) implements RuleKey {

		@Override
		public String kind() {
			return "header";
		}

	}

	/**
	 * A request parameter's value, {@code param:<name>}: from the query string or a form.
	 *
	 * @param name the parameter's name
	 */
	record Param(String name) implements RuleKey {

		@Override
		public String kind() {
			return "param";
		}

	}

	/** The authenticated user's name, {@code principal}: such a rule applies after authentication. */
	record Principal() implements RuleKey {

		@Override
		public String kind() {
			return "principal";
		}

	}

	/**
	 * What a key-resolver bean of the stack finds, {@code bean:<name>}.
	 *
	 * @param name the bean's name
	 */
	record Bean(String name) implements RuleKey {

		@Override
		public String kind() {
			return "bean";
		}

	}

	/** What the entry point's own resolver finds: a gateway route's {@code KeyResolver}. */
	record Resolver() implements RuleKey {

		@Override
		public String kind() {
			return "resolver";
		}

	}

	/**
	 * What a SpEL expression over the arguments of a {@link dev.ratelimit.RateLimited} bean method evaluates to,
	 * such as {@code #order.customerId}: only bean methods have arguments to read.
	 *
	 * @param expression the expression, starting with {@code #}
	 */
	record Expression(String expression) implements RuleKey {

		@Override
		public String kind() {
			return "expression";
		}

		@Override
		public String spelling() {
			return this.expression;
		}

	}

}

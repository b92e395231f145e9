package dev.ratelimit.web;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Where a rule learns the actual cost of a request once its work is done ({@code cost-from}): the rule reserves its
 * {@code cost} before the handler, and settles with the actual cost after it, charging the difference (past the limit
 * if need be: the work is done) or giving the excess back.
 *
 * @since 0.1.0
 */
public sealed interface ResponseCost {

	/**
	 * Reads the actual cost of an answer: a whole number, zero or more.
	 * @param value the header's value, or the expression's result
	 * @return the cost, or {@code null} when the value is none (the reserved cost then stands)
	 */
	static @Nullable Long parse(@Nullable Object value) {
		if (value instanceof Number number) {
			long cost = number.longValue();
			return (cost >= 0) ? cost : null;
		}
		if (value == null) {
			return null;
		}
		try {
			long cost = Long.parseLong(value.toString().strip());
			return (cost >= 0) ? cost : null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Returns the actual costs a response's headers tell, for the rules that read theirs from a header.
	 * @param headers reads the first value of a response header by its name, or {@code null}
	 * @return the costs
	 */
	static Actual fromHeaders(java.util.function.Function<String, @Nullable String> headers) {
		return (rule) -> (rule.costFrom() instanceof Header header) ? parse(headers.apply(header.name())) : null;
	}

	/**
	 * Reads {@code cost-from} as properties and route args give it: {@code header:<Name>}.
	 * @param rule the rule's name, for the error
	 * @param text the value
	 * @param expose whether the header stays in the response ({@code cost-from-expose})
	 * @return the source
	 * @throws InvalidRateLimitRuleException naming {@code cost-from} when the value is no header
	 */
	static ResponseCost header(String rule, String text, boolean expose) {
		String spec = text.strip();
		if (!spec.toLowerCase(Locale.ROOT).startsWith("header:") || spec.length() == "header:".length()
				|| !spec.substring("header:".length()).strip().matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
			throw new InvalidRateLimitRuleException(rule, "cost-from", text,
					"name the response header the handler sets to the actual cost, such as header:X-Tokens-Used");
		}
		return new Header(spec.substring("header:".length()).strip(), expose);
	}

	/**
	 * Reads the actual cost of a request under a rule that reads it ({@code costFrom}), once its response is ready.
	 */
	@FunctionalInterface
	interface Actual {

		/** Knows no actual cost: every reservation stands. */
		Actual NONE = (rule) -> null;

		/** The request never reached its handler (a later stage refused it): every reservation is given back. */
		Actual NOTHING = (rule) -> 0L;

		/**
		 * Returns the actual cost of the request under a rule.
		 * @param rule the rule, whose {@code costFrom} says where the cost is
		 * @return the cost, or {@code null} when the response tells none (the reservation stands)
		 */
		@Nullable Long of(RateLimitRule rule);

	}

	/**
	 * The actual cost in a response header the handler (or the route's backend) sets, such as {@code X-Tokens-Used}.
	 *
	 * @param name the header's name
	 * @param expose whether the header stays in the response the client gets; by default it is removed
	 */
	record Header(String name, boolean expose) implements ResponseCost {
	}

	/**
	 * The actual cost as a SpEL expression over a bean method's result ({@code #result}), such as
	 * {@code #result.usage.totalTokens}.
	 *
	 * @param expression the expression
	 */
	record Result(String expression) implements ResponseCost {
	}

}

package dev.ratelimit.rules;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimiter;

/**
 * Where a rule learns the actual cost of a request once its work is done ({@code cost-from}): the rule reserves its
 * {@code cost} before the handler, and settles with the actual cost after it, charging the difference (past the limit
 * if need be: the work is done) or giving the excess back.
 *
 * @since 0.1.0
 */
public sealed interface ResponseCost {

	/**
	 * Reads a cost: an exact whole number from 0 to {@link RateLimiter#MAX_COST}, whatever its type (a
	 * {@code BigInteger} or {@code BigDecimal} is not cut to its low 64 bits, a {@code double} not rounded), or the
	 * digits of a header's value.
	 * @param value the header's value, or the expression's result
	 * @return the cost, or {@code null} when the value is none, not a whole number, or out of that range (a
	 * reservation then stands)
	 */
	static @Nullable Long parse(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		if (value instanceof Number number) {
			BigDecimal exact = exact(number);
			if (exact == null || exact.signum() < 0 || exact.compareTo(BigDecimal.valueOf(RateLimiter.MAX_COST)) > 0) {
				return null;
			}
			try {
				return exact.longValueExact();
			}
			catch (ArithmeticException ex) {
				// a fraction
				return null;
			}
		}
		try {
			long cost = Long.parseLong(value.toString().strip());
			return (cost >= 0 && cost <= RateLimiter.MAX_COST) ? cost : null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static @Nullable BigDecimal exact(Number number) {
		if (number instanceof Long || number instanceof Integer || number instanceof Short || number instanceof Byte) {
			return BigDecimal.valueOf(number.longValue());
		}
		if (number instanceof BigDecimal decimal) {
			return decimal;
		}
		if (number instanceof BigInteger integer) {
			return new BigDecimal(integer);
		}
		if (number instanceof Double || number instanceof Float) {
			double floating = number.doubleValue();
			return Double.isFinite(floating) ? new BigDecimal(floating) : null;
		}
		try {
			// another Number (AtomicLong, LongAdder, a library's own): its decimal spelling
			return new BigDecimal(number.toString());
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

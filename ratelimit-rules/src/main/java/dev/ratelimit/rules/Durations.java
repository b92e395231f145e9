package dev.ratelimit.rules;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a duration as Spring Boot's binder does ({@code DurationStyle.detectAndParse}), without Spring Boot: the
 * simple form ({@code 500ms}, {@code 30s}, {@code 1m}, {@code 2h}, {@code 1d}; no unit means milliseconds) or
 * ISO-8601 ({@code PT1M}).
 */
final class Durations {

	private static final Pattern SIMPLE = Pattern.compile("^([+-]?\\d+)([a-zA-Z]{0,2})$");

	private static final Pattern ISO_8601 = Pattern.compile("^[+-]?[pP].*$");

	private Durations() {
	}

	/**
	 * Parses a duration.
	 * @param text the duration, in the simple form or ISO-8601
	 * @return the duration
	 * @throws IllegalArgumentException when the text is neither
	 */
	static Duration parse(String text) {
		String value = text.strip();
		Matcher simple = SIMPLE.matcher(value);
		try {
			if (simple.matches()) {
				long amount = Long.parseLong(simple.group(1));
				return switch (simple.group(2).toLowerCase(Locale.ROOT)) {
					case "ns" -> Duration.ofNanos(amount);
					case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
					case "", "ms" -> Duration.ofMillis(amount);
					case "s" -> Duration.ofSeconds(amount);
					case "m" -> Duration.ofMinutes(amount);
					case "h" -> Duration.ofHours(amount);
					case "d" -> Duration.ofDays(amount);
					default -> throw new IllegalArgumentException("'" + text + "' has an unknown unit");
				};
			}
			if (ISO_8601.matcher(value).matches()) {
				return Duration.parse(value);
			}
		}
		catch (ArithmeticException | DateTimeParseException ex) {
			throw new IllegalArgumentException("'" + text + "' is not a valid duration", ex);
		}
		throw new IllegalArgumentException("'" + text + "' is not a valid duration");
	}

}

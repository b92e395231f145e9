package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.rules.RateLimitRule;

import org.springframework.boot.convert.DurationStyle;

/**
 * Reads the body of {@code POST /actuator/ratelimit/{rule}/{key}/override}: {@code {"limit": 5, "window": "1m"}} (and
 * an optional {@code "burst"}) or {@code {"limits": "5/1m, 100/1h"}} (over HTTP; {@code [{...}, {...}]} through the
 * endpoint's Java method), and an optional {@code "duration": "2h"}. Every
 * error names the field and the fix, and is thrown as an {@link IllegalArgumentException}.
 */
final class OverrideBodies {

	private static final String EXAMPLE = "give {\"limit\": 5, \"window\": \"1m\"} or {\"limits\": \"5/1m, 100/1h\"}";

	private OverrideBodies() {
	}

	/** The limits of a body, checked against what the rule's algorithm can decide. */
	static List<RateLimit> limits(RateLimitRule rule, @Nullable String limit, @Nullable String window,
			@Nullable String burst, @Nullable List<?> limits) {
		List<RateLimit> read = new ArrayList<>();
		if (limits != null) {
			if (limit != null || window != null || burst != null) {
				throw new IllegalArgumentException("the body gives both limits and limit/window/burst; " + EXAMPLE);
			}
			if (limits.isEmpty()) {
				throw new IllegalArgumentException("limits is empty; " + EXAMPLE);
			}
			for (int i = 0; i < limits.size(); i++) {
				if (limits.get(i) instanceof CharSequence text) {
					read.add(shortLimit("limits[" + i + "]", text.toString()));
					continue;
				}
				if (!(limits.get(i) instanceof Map<?, ?> one)) {
					throw new IllegalArgumentException("limits[" + i + "] is not an object; " + EXAMPLE);
				}
				read.add(limit("limits[" + i + "].", text(one.get("limit")), text(one.get("window")),
						text(one.get("burst"))));
			}
		}
		else {
			if (limit == null && window == null) {
				throw new IllegalArgumentException("the body has no limits; " + EXAMPLE);
			}
			read.add(limit("", limit, window, burst));
		}
		try {
			rule.algorithm().check(read, Math.max(1, rule.cost()));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("limits do not suit rule '" + rule.name() + "' (" + rule.algorithm().id()
					+ "): " + ex.getMessage());
		}
		return List.copyOf(read);
	}

	/** How long an override lasts, {@code null} until removed. */
	static @Nullable Duration duration(@Nullable String duration) {
		if (duration == null) {
			return null;
		}
		Duration length = parse("duration", duration, "2h or PT2H, or leave it out for an override that lasts until "
				+ "it is removed");
		if (length.toMillis() < 1 || length.compareTo(RateLimit.MAX_WINDOW) > 0) {
			throw new IllegalArgumentException("duration '" + duration + "' is out of range; give one from 1ms to "
					+ "36500d, or leave it out for an override that lasts until it is removed");
		}
		return length;
	}

	private static RateLimit limit(String field, @Nullable String limit, @Nullable String window,
			@Nullable String burst) {
		if (limit == null) {
			throw new IllegalArgumentException(field + "limit is missing; " + EXAMPLE);
		}
		if (window == null) {
			throw new IllegalArgumentException(field + "window is missing; give one such as 1m or PT1M");
		}
		long permits = number(field + "limit", limit);
		Duration length = parse(field + "window", window, "1m or PT1M");
		try {
			return new RateLimit(permits, length, (burst != null) ? number(field + "burst", burst) : permits);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(field + ex.getMessage());
		}
	}

	/**
	 * A limit written {@code <limit>/<window>} or {@code <limit>/<window>/<burst>}, as an element of
	 * {@code "limits": "5/1m, 100/1h"}: the form a body over HTTP can carry, since Spring Boot reads an endpoint's body
	 * as a map of strings and refuses a JSON array.
	 */
	private static RateLimit shortLimit(String field, String text) {
		String[] parts = text.strip().split("/", -1);
		if (parts.length < 2 || parts.length > 3) {
			throw new IllegalArgumentException(field + " '" + text + "' is invalid; give <limit>/<window>[/<burst>], "
					+ "such as \"limits\": \"5/1m, 100/1h\"");
		}
		return limit(field + ".", parts[0], parts[1], (parts.length == 3) ? parts[2] : null);
	}

	private static long number(String field, String value) {
		try {
			return Long.parseLong(value.strip());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(field + " '" + value + "' is invalid; give a whole number of permits "
					+ "from 1, such as 5");
		}
	}

	private static Duration parse(String field, String value, String example) {
		try {
			return DurationStyle.detectAndParse(value.strip());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(field + " '" + value + "' is invalid; give one such as " + example);
		}
	}

	private static @Nullable String text(@Nullable Object value) {
		return (value != null) ? value.toString() : null;
	}

}

package dev.ratelimit.rules;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.InvalidRateLimitException;
import dev.ratelimit.RateLimit;

/**
 * One limit of a rule as configured, before it is checked.
 *
 * @param prefix how the limit's attributes are named in messages: empty for the short form
 * ({@code limit}, {@code window}), {@code limits[i].} for one of several
 * @param limit permits per window, {@code null} when not set
 * @param window the window, {@code null} when not set
 * @param burst for the token bucket and GCRA, how many may be taken at once; {@code null} for the
 * limit
 * @since 0.1.0
 */
public record LimitDefinition(String prefix, @Nullable Long limit, @Nullable Duration window,
		@Nullable Long burst) {

	RateLimit toRateLimit(String rule) {
		if (this.limit == null) {
			throw new InvalidRateLimitRuleException(rule, this.prefix + "limit", null,
					"set it to the permits per window, at least 1");
		}
		if (this.window == null) {
			throw new InvalidRateLimitRuleException(rule, this.prefix + "window", null,
					"set it to the window length, for example 1m");
		}
		try {
			return new RateLimit(this.limit, this.window, (this.burst != null) ? this.burst : this.limit);
		}
		catch (InvalidRateLimitException ex) {
			Object value = switch (ex.getArgument()) {
				case "window" -> RateLimit.label(this.window);
				case "burst" -> this.burst;
				default -> this.limit;
			};
			throw new InvalidRateLimitRuleException(rule, this.prefix + ex.getArgument(), value, String.valueOf(ex.getMessage()));
		}
	}

}

package dev.ratelimit;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Other limits given at runtime to one key of a rule, or to every key matching a pattern ({@code partner-*}), for a
 * while or until removed: see {@link RateLimitOverrides}.
 *
 * @param rule the rule's name
 * @param key the key's value, or a pattern in which {@code *} stands for any characters
 * @param limits the limits that replace the rule's (or the key's plan's), at least one
 * @param expiresAt when the override ends, by the store's clock, or {@code null} for never
 * @since 0.1.0
 */
public record RateLimitOverride(String rule, String key, List<RateLimit> limits, @Nullable Instant expiresAt) {

	/**
	 * Creates an override, checking it.
	 * @throws IllegalArgumentException when there is no limit
	 */
	public RateLimitOverride {
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("an override of rule '" + rule + "' needs at least one limit");
		}
		limits = List.copyOf(limits);
	}

	/**
	 * Returns whether the key is a pattern, shared by every key it matches.
	 * @return {@code true} when the key holds a {@code *}
	 */
	public boolean isPattern() {
		return this.key.indexOf('*') >= 0;
	}

}

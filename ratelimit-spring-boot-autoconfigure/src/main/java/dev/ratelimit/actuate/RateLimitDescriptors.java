package dev.ratelimit.actuate;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What the {@link RateLimitEndpoint}'s operations answer, as JSON: one record per answer.
 *
 * @since 0.1.0
 */
public final class RateLimitDescriptors {

	private RateLimitDescriptors() {
	}

	/**
	 * The rules in force and how failures are handled.
	 *
	 * @param failureMode the failure mode, such as {@code fail-open}
	 * @param redis whether Redis decides: {@code up}, or {@code down} while the circuit breaker keeps calls from it
	 * (the failure mode then decides), {@code unknown} without a breaker
	 * @param circuitBreaker the state of the circuit breaker guarding Redis: {@code closed}, {@code open} or
	 * {@code half-open}, {@code unknown} without one
	 * @param rules the rules
	 * @param allowedAddresses the client addresses and blocks whose requests skip every rule
	 * @param deniedAddresses the client addresses and blocks refused with 403 before any rule
	 */
	public record RulesDescriptor(String failureMode, String redis, String circuitBreaker, List<RuleDescriptor> rules,
			List<String> allowedAddresses, List<String> deniedAddresses) implements OperationResponseBody {
	}

	/**
	 * One rule.
	 *
	 * @param name the rule's name
	 * @param source where it is defined
	 * @param paths its path patterns, empty for a handler's rule
	 * @param methods its HTTP methods, empty for all
	 * @param algorithm its algorithm
	 * @param key whose budget a request charges
	 * @param cost permits one request takes
	 * @param shadow whether it only observes
	 * @param limits its limits
	 * @param allowKeys how many key values are exempt from it (the values themselves, often internal API
	 * keys, are not shown)
	 */
	public record RuleDescriptor(String name, String source, List<String> paths, List<String> methods,
			String algorithm, String key, long cost, boolean shadow, List<LimitDescriptor> limits, int allowKeys) {
	}

	/**
	 * One limit of a rule.
	 *
	 * @param policy its policy name in headers
	 * @param limit permits per window
	 * @param window the window, such as {@code 1m}
	 * @param burst permits that may be taken at once
	 */
	public record LimitDescriptor(String policy, long limit, String window, long burst) {
	}

	/**
	 * The outcome of a reload.
	 *
	 * @param reloaded whether the new rules are in force
	 * @param rules the names of the rules from properties in force now
	 * @param error why the new rules were refused, or {@code null}
	 */
	public record ReloadDescriptor(boolean reloaded, List<String> rules, @Nullable String error)
			implements OperationResponseBody {
	}

	/**
	 * A key's state under a rule.
	 *
	 * @param rule the rule's name
	 * @param key the key
	 * @param limits the state under each limit: of the plan this instance remembers for the key (never
	 * looked up for the read, nor named), else the rule's own
	 * @param blocked whether the key is blocked: every request refused until the block ends; {@code null}
	 * under a rule without {@code block-for}
	 * @param blockedForSeconds how long the block has still to run, in seconds rounded up; 0 when not
	 * blocked, {@code null} under a rule without {@code block-for}
	 * @param blockedUntil when the block ends, by this instance's clock (ISO-8601), or {@code null}
	 */
	public record KeyDescriptor(String rule, String key, List<KeyLimitDescriptor> limits,
			@Nullable Boolean blocked, @Nullable Long blockedForSeconds, @Nullable String blockedUntil)
			implements OperationResponseBody {
	}

	/**
	 * A key blocked by hand.
	 *
	 * @param rule the rule's name
	 * @param key the key
	 * @param blocked whether it is blocked now
	 * @param blockedForSeconds how long the block lasts, in seconds rounded up
	 * @param blockedUntil when it ends, by this instance's clock (ISO-8601), or {@code null}
	 * @param error why it was not blocked, or {@code null}
	 */
	public record BlockDescriptor(String rule, String key, boolean blocked, long blockedForSeconds,
			@Nullable String blockedUntil, @Nullable String error) implements OperationResponseBody {
	}

	/**
	 * A key's state under one limit.
	 *
	 * @param policy the limit's policy name
	 * @param limit permits per window
	 * @param remaining permits left now
	 * @param allowed whether a request for one permit would be granted now
	 * @param retryAfterSeconds when it would be, if not now
	 * @param resetAfterSeconds when the key is back to full
	 */
	public record KeyLimitDescriptor(String policy, long limit, long remaining, boolean allowed,
			long retryAfterSeconds, long resetAfterSeconds) {
	}

	/**
	 * A key put back to full.
	 *
	 * @param rule the rule's name
	 * @param key the key
	 * @param reset always {@code true}
	 * @param deletedEntries how many stored entries were deleted
	 * @param unblocked whether a block of the key was lifted (with any memory of past blocks); {@code null}
	 * under a rule without {@code block-for}
	 */
	public record ResetDescriptor(String rule, String key, boolean reset, long deletedEntries, @Nullable Boolean unblocked)
			implements OperationResponseBody {
	}

	/**
	 * A key's override of its rule's limits, or a pattern's, shared by every key it matches.
	 *
	 * @param rule the rule's name
	 * @param key the key, or the pattern ({@code *} for any characters)
	 * @param pattern whether the key is a pattern
	 * @param limits the limits that replace the rule's (or the key's plan's); empty when it was not set
	 * @param expiresAt when it ends, by the Redis server's clock (ISO-8601), or {@code null} for never
	 * @param error why it was not set, or {@code null}
	 * @since 0.1.0
	 */
	public record OverrideDescriptor(String rule, String key, boolean pattern, List<LimitDescriptor> limits,
			@Nullable String expiresAt, @Nullable String error) implements OperationResponseBody {
	}

	/**
	 * The overrides of a rule.
	 *
	 * @param rule the rule's name
	 * @param overrides its overrides in force, sorted by key
	 * @since 0.1.0
	 */
	public record OverridesDescriptor(String rule, List<OverrideDescriptor> overrides) implements OperationResponseBody {
	}

	/**
	 * An override removed.
	 *
	 * @param rule the rule's name
	 * @param key the key or the pattern
	 * @param removed whether there was one
	 * @since 0.1.0
	 */
	public record OverrideRemovedDescriptor(String rule, String key, boolean removed) implements OperationResponseBody {
	}

}

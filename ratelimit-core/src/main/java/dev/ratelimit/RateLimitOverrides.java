package dev.ratelimit;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Per-key overrides of a rule's limits, set at runtime (by the actuator endpoint) and shared by every instance of an
 * application: the rule engine asks {@link #limits} on each decision, which answers from this instance's view of the
 * store (no call to the store per decision); writes and listings go to the store.
 *
 * @since 0.1.0
 */
public interface RateLimitOverrides {

	/** No override ever: for an application that does not enable them. */
	RateLimitOverrides NONE = new RateLimitOverrides() {

		@Override
		public @Nullable List<RateLimit> limits(String rule, String key) {
			return null;
		}

		@Override
		public RateLimitOverride set(String rule, String key, List<RateLimit> limits, @Nullable Duration duration) {
			throw new UnsupportedOperationException("overrides are disabled: set ratelimit.overrides.enabled=true");
		}

		@Override
		public boolean remove(String rule, String key) {
			return false;
		}

		@Override
		public List<RateLimitOverride> list(String rule) {
			return List.of();
		}

	};

	/**
	 * Returns the limits in force for a key under a rule, as this instance sees them: the key's own override, else that
	 * of the most specific pattern matching it (the one with the most characters besides {@code *}).
	 * @param rule the rule's name
	 * @param key the value the rule's key resolved to
	 * @return the limits, or {@code null} when no override applies
	 */
	@Nullable List<RateLimit> limits(String rule, String key);

	/**
	 * Sets the override of a key (or of a pattern) under a rule, replacing any other, in the store and in this
	 * instance's view at once.
	 * @param rule the rule's name
	 * @param key the key's value, or a pattern in which {@code *} stands for any characters
	 * @param limits the limits, at least one
	 * @param duration how long it lasts, or {@code null} until removed
	 * @return the override as stored
	 */
	RateLimitOverride set(String rule, String key, List<RateLimit> limits, @Nullable Duration duration);

	/**
	 * Removes the override of a key (or of a pattern) under a rule, in the store and in this instance's view.
	 * @param rule the rule's name
	 * @param key the key or pattern, as it was set
	 * @return whether there was one
	 */
	boolean remove(String rule, String key);

	/**
	 * Returns the overrides of a rule in force, as the store has them now.
	 * @param rule the rule's name
	 * @return the overrides, patterns and keys sorted by key
	 */
	List<RateLimitOverride> list(String rule);

}

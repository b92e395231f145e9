package dev.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * Finds the plan of a caller, for rules whose limits depend on what the caller pays for: the free tier
 * 100 requests an hour, the pro tier 10,000. Declare one as a bean and name it in a rule's
 * {@code plan} as {@code bean:<beanName>}. Its answers are cached in each instance
 * ({@code ratelimit.plan-cache.*}), so it may read a database.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RateLimitPlanResolver {

	/** The plan name that exempts a key from the rule. */
	String UNLIMITED = "unlimited";

	/**
	 * Returns the plan of a key under a rule.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolved to: an API key, a user name
	 * @return the plan's name, {@link #UNLIMITED} to exempt the key, or {@code null} (or an unknown name)
	 * for the rule's own limits
	 */
	@Nullable String resolvePlan(String rule, String key);

}

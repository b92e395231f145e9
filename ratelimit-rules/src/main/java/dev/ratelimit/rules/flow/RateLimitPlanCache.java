package dev.ratelimit.rules.flow;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.RateLimitRule;

/**
 * The plans the engine remembers for keys under rules whose plans a {@link dev.ratelimit.RateLimitPlanResolver} bean
 * names ({@code plan=bean:<name>}), as the actuator endpoint reads them and a reload of the rules forgets them. The
 * engine implements it (built by {@code RateLimitEngine.builder()}).
 *
 * @since 0.1.0
 */
public interface RateLimitPlanCache {

	/**
	 * Returns the plan of a key under a rule as remembered, without asking the resolver: reading a key's state must not
	 * make the resolver look up keys never seen.
	 * @param rule a rule whose plan is {@code bean:<name>}
	 * @param key the value the rule's key resolved to
	 * @return the plan's name, or {@code null} when none is remembered (or the key has none)
	 */
	@Nullable String rememberedPlan(RateLimitRule rule, String key);

	/**
	 * Forgets every remembered plan, so that each key's plan is asked again (after the plans changed).
	 */
	void clear();

}

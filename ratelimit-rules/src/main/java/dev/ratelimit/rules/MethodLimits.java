package dev.ratelimit.rules;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The limits of a {@link dev.ratelimit.RateLimited} bean method: the rules of its annotations and its class's,
 * class-level first, the SpEL costs among them, and the method to call instead of throwing when one refuses.
 *
 * @param rules the rules, in the order they are checked
 * @param costs the SpEL expression of each rule whose cost is one, by the rule's name
 * @param fallbackMethod the name of the bean's method to call on a refusal, or {@code null} to throw
 * @since 0.1.0
 */
public record MethodLimits(List<RateLimitRule> rules, Map<String, String> costs, @Nullable String fallbackMethod) {

	/** No limits: the method is not annotated. */
	public static final MethodLimits NONE = new MethodLimits(List.of(), Map.of(), null);

	public MethodLimits {
		rules = List.copyOf(rules);
		costs = Map.copyOf(costs);
	}

	/**
	 * Returns the SpEL expression of a rule's cost.
	 * @param rule the rule
	 * @return the expression, or {@code null} when the rule's cost is a number
	 */
	public @Nullable String costOf(RateLimitRule rule) {
		return this.costs.get(rule.name());
	}

}

package dev.ratelimit.rules;

import dev.ratelimit.Algorithm;

/**
 * Rules for tests of the rule engine without a web application: a factory whose rules may name no key-resolver
 * bean.
 */
public final class TestRules {

	private TestRules() {
	}

	public static RateLimitRuleFactory factory(Algorithm defaultAlgorithm) {
		return factory(defaultAlgorithm, (name) -> false);
	}

	/**
	 * Returns a factory without key resolvers whose annotations may name the given plan resolver beans.
	 */
	public static RateLimitRuleFactory factory(Algorithm defaultAlgorithm,
			java.util.function.Predicate<String> planResolvers) {
		return new RateLimitRuleFactory(defaultAlgorithm, new KeyResolvers() {

			@Override
			public boolean exists(String name) {
				return false;
			}

			@Override
			public String type() {
				return "none";
			}

		}, false, planResolvers);
	}

}

package dev.ratelimit.sample;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitPlanResolver;

import org.springframework.stereotype.Component;

/**
 * The plan of each API key, for the {@code plans} rule: a real application would look the key up in its
 * customer database (each instance remembers the answer for {@code ratelimit.plan-cache.ttl}).
 */
@Component
class SamplePlans implements RateLimitPlanResolver {

	@Override
	public @Nullable String resolvePlan(String rule, String key) {
		if (key.equals("internal")) {
			return UNLIMITED;
		}
		return key.startsWith("pro-") ? "pro" : null;
	}

}

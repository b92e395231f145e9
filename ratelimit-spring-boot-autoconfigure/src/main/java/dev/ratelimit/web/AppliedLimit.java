package dev.ratelimit.web;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;

/**
 * One limit applied to a request, as a policy of the rate-limit headers, and the decision it gave.
 *
 * @param policy the policy name: the rule's name, with the window when the rule has several limits
 * @param limit the limit
 * @param decision the decision
 * @since 0.1.0
 */
public record AppliedLimit(String policy, RateLimit limit, RateLimitDecision decision) {
}

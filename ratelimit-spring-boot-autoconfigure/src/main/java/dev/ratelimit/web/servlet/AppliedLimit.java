package dev.ratelimit.web.servlet;

import dev.ratelimit.RateLimitDecision;

/**
 * A rule applied to a request and the decision it gave.
 *
 * @param rule the rule
 * @param decision the decision
 */
public record AppliedLimit(RateLimitRule rule, RateLimitDecision decision) {
}

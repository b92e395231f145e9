package dev.ratelimit.rules.internal;

import java.util.List;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseStatuses;

/**
 * A charge a request took before its handler ran, settled after the response: under a rule that counts responses by
 * status ({@code count-statuses}), kept when the final status counts (or the client went away), given back when it
 * does not; under a rule that reads the actual cost ({@code cost-from}), a reservation of its {@code cost}, adjusted
 * to the actual cost (the difference charged, or the excess given back), kept when none is known. It names the budget the request was checked against, read once, before the handler, so that
 * the charge and the refund never depend on what the request looks like afterwards (a security context
 * cleared, say).
 *
 * @param rule the rule
 * @param limiter the limiter that took the permits: the rule's, or the {@code local} failure mode's
 * @param key the budget's key at that limiter
 * @param limits the limits the permits were taken under
 * @param permits how many were taken
 * @since 0.1.0
 */
record StatusCharge(RateLimitRule rule, RateLimiter limiter, String key, List<RateLimit> limits,
		long permits) {

	/**
	 * Returns whether a response of this status keeps the charge.
	 * @param status the final status
	 * @return {@code true} when the rule counts it
	 */
	public boolean counts(int status) {
		if (this.rule.costFrom() != null) {
			return true;
		}
		ResponseStatuses statuses = this.rule.countStatuses();
		return statuses == null || statuses.includes(status);
	}

}

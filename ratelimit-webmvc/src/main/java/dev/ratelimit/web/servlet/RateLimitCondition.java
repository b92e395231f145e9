package dev.ratelimit.web.servlet;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Decides whether a rule applies to a servlet request, for what paths and methods cannot say: skip
 * health probes of a load balancer, internal callers, requests of a kind. Declare one as a bean and name
 * it in a rule's {@code condition} as {@code bean:<beanName>}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RateLimitCondition {

	/**
	 * Returns whether the rule applies to the request; a condition that throws counts as applying.
	 * @param request the request
	 * @return {@code true} to apply the rule, {@code false} to skip it for this request
	 */
	boolean applies(HttpServletRequest request);

}

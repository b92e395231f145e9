package dev.ratelimit.web.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import dev.ratelimit.web.RateLimitRules;

import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Applies, before a handler runs, the rules that need the handler or an authenticated user: those of
 * {@link dev.ratelimit.RateLimited} handlers, and those from properties keyed by {@code principal}.
 * The other rules from properties are applied earlier, by the {@link RateLimitFilter}.
 */
public final class RateLimitInterceptor implements HandlerInterceptor {

	private final RateLimitRules rules;

	private final ServletRateLimitSupport support;

	/**
	 * Creates an interceptor.
	 * @param rules the rules in force
	 * @param support applies rules to servlet requests
	 */
	public RateLimitInterceptor(RateLimitRules rules, ServletRateLimitSupport support) {
		this.rules = rules;
		this.support = support;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws Exception {
		if (request.getDispatcherType() != DispatcherType.REQUEST) {
			return true;
		}
		return this.support.apply(request, response, this.rules.matchAfterAuthentication(request.getMethod(),
				ServletRateLimitSupport.path(request), (handler instanceof HandlerMethod method) ? method : null));
	}

}

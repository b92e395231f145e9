package dev.ratelimit.web.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Applies, before a handler runs, the rules that need the handler or an authenticated user: those of
 * {@link dev.ratelimit.RateLimited} handlers, and those from properties keyed by {@code principal}.
 * The other rules from properties are applied earlier, by the {@link RateLimitFilter}.
 *
 * @since 0.1.0
 */
public final class RateLimitInterceptor implements HandlerInterceptor {

	private final ServletRateLimitSupport support;

	/**
	 * Creates an interceptor.
	 * @param support applies the rules to servlet requests
	 */
	public RateLimitInterceptor(ServletRateLimitSupport support) {
		this.support = support;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws Exception {
		return request.getDispatcherType() != DispatcherType.REQUEST
				|| this.support.applyAfterAuthentication(request, response, handler);
	}

}

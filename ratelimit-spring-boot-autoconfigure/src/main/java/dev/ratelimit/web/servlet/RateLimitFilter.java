package dev.ratelimit.web.servlet;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;
import dev.ratelimit.web.servlet.internal.ServletRateLimitSupport;

/**
 * Applies the rules from properties to every request before the filters behind it see it, Spring
 * Security's among them: a refused login attempt, a request HTTP Basic would answer with 401 or one its
 * authorization would refuse with 403 are counted and refused like any other. Rules keyed by
 * {@code principal}, which need an authenticated request, and the rules of
 * {@link dev.ratelimit.RateLimited} handlers are the {@link RateLimitInterceptor}'s.
 *
 * @since 0.1.0
 */
public final class RateLimitFilter extends OncePerRequestFilter {

	private final ServletRateLimitSupport support;

	/**
	 * Creates a filter.
	 * @param support applies the rules to servlet requests
	 */
	public RateLimitFilter(ServletRateLimitSupport support) {
		this.support = support;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (!this.support.applyBeforeAuthentication(request, response)) {
			return;
		}
		try {
			chain.doFilter(request, response);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			this.support.settleCounted(request, response, ex);
			throw ex;
		}
		this.support.settleCounted(request, response, null);
	}

}

package dev.ratelimit.web.servlet;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRegistration;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;

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

	private static final String GRPC = "application/grpc";

	/** The servlet of grpc-java that hosts gRPC services in the servlet container. */
	private static final String GRPC_SERVLET = "io.grpc.servlet.jakarta.GrpcServlet";

	private final ServletRateLimitSupport support;

	private final boolean leavesGrpc;

	/**
	 * Creates a filter.
	 * @param support applies the rules to servlet requests
	 */
	public RateLimitFilter(ServletRateLimitSupport support) {
		this(support, false);
	}

	/**
	 * Creates a filter.
	 * @param support applies the rules to servlet requests
	 * @param leavesGrpc whether it lets the requests of gRPC hosted in the servlet container ({@code application/grpc}
	 * to grpc-java's {@code GrpcServlet}) through untouched, because the gRPC server's interceptors limit their calls
	 * and answer refusals with gRPC statuses, which gRPC clients read (an HTTP 429 reads as {@code UNAVAILABLE}, which
	 * they retry)
	 */
	public RateLimitFilter(ServletRateLimitSupport support, boolean leavesGrpc) {
		this.support = support;
		this.leavesGrpc = leavesGrpc;
	}

	/**
	 * Leaves a gRPC call to the gRPC interceptors: a request with a gRPC content type that the container maps to
	 * the gRPC servlet. The content type alone is the client's word: a request to any other servlet is filtered
	 * whatever it says.
	 */
	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		if (!this.leavesGrpc) {
			return false;
		}
		String contentType = request.getContentType();
		if (contentType == null || !contentType.regionMatches(true, 0, GRPC, 0, GRPC.length())) {
			return false;
		}
		HttpServletMapping mapping = request.getHttpServletMapping();
		ServletRegistration servlet = (mapping != null)
				? request.getServletContext().getServletRegistration(mapping.getServletName()) : null;
		return servlet != null && GRPC_SERVLET.equals(servlet.getClassName());
	}

	/**
	 * Sees the asynchronous dispatches too: the one that writes an asynchronous handler's result settles the charges
	 * of {@code count-statuses} rules before the container commits its status.
	 */
	@Override
	protected boolean shouldNotFilterAsyncDispatch() {
		return false;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (isAsyncDispatch(request)) {
			// decided on the first dispatch: what is left is to settle before the container completes the response
			chain.doFilter(request, response);
			this.support.settleDispatched(request, response);
			return;
		}
		HttpServletResponse target = this.support.responseFor(request, response);
		if (!this.support.applyBeforeAuthentication(request, target)) {
			return;
		}
		try {
			chain.doFilter(request, target);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			this.support.settleAfterResponse(request, target, ex);
			throw ex;
		}
		this.support.settleAfterResponse(request, target, null);
	}

}

package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.MappingMatch;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.web.AppliedLimit;
import dev.ratelimit.web.ClientAddressResolver;
import dev.ratelimit.web.RateLimitEnforcer.RequestKeys;
import dev.ratelimit.web.RateLimitEnforcer;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RateLimitRejection;
import dev.ratelimit.web.RateLimitRejectionHandler;
import dev.ratelimit.web.RateLimitRule;
import dev.ratelimit.web.RateLimitRules;
import dev.ratelimit.web.RateLimitVerdict;
import dev.ratelimit.web.RuleKey;
import dev.ratelimit.web.internal.StatusCharge;

import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.util.DisconnectedClientHelper;
import org.springframework.web.util.UriUtils;

/**
 * Applies rules to a servlet request, for the {@link RateLimitFilter} and the
 * {@link RateLimitInterceptor} alike: reads each rule's key from the request, has the
 * {@link RateLimitEnforcer} decide, sets the rate-limit headers of every rule applied to the request so
 * far, and answers a refused request with the {@link RateLimitRejectionHandler}'s response.
 *
 * @since 0.1.0
 */
public final class ServletRateLimitSupport {

	private static final String APPLIED = ServletRateLimitSupport.class.getName() + ".applied";

	/** The rules of a request that are charged after its response, by its status. */
	private static final String COUNTED = ServletRateLimitSupport.class.getName() + ".counted";

	/** Marks a request from an allowed client address: it skips every rule. */
	private static final String ALLOWED = ServletRateLimitSupport.class.getName() + ".allowed";

	/** Where Tomcat says that it could not parse a request's parameters. */
	private static final String PARAMETER_PARSE_FAILED = "org.apache.catalina.parameter_parse_failed";

	private final RateLimitRules rules;

	private final RateLimitEnforcer enforcer;

	private final ClientAddressResolver addresses;

	private final Function<String, RateLimitKeyResolver> keyResolvers;

	private final Map<String, RateLimitKeyResolver> resolvedKeyResolvers = new ConcurrentHashMap<>();

	private final Function<String, RateLimitCondition> conditions;

	private final Map<String, RateLimitCondition> resolvedConditions = new ConcurrentHashMap<>();

	private final RateLimitHeaders headers;

	private final RateLimitRejectionHandler rejections;

	private final RateLimitResponseWriter writer;

	/**
	 * Creates the support.
	 * @param rules the rules in force
	 * @param enforcer decides requests under the rules
	 * @param addresses resolves client addresses
	 * @param keyResolvers finds the key-resolver bean of a name (or alias), for {@code bean:<name>} keys
	 * @param headers builds the rate-limit headers
	 * @param rejections builds the responses to refused requests
	 * @param writer writes headers and responses
	 */
	public ServletRateLimitSupport(RateLimitRules rules, RateLimitEnforcer enforcer, ClientAddressResolver addresses,
			Function<String, RateLimitKeyResolver> keyResolvers, RateLimitHeaders headers,
			RateLimitRejectionHandler rejections, RateLimitResponseWriter writer) {
		this(rules, enforcer, addresses, keyResolvers, (name) -> {
			throw new IllegalStateException("No condition bean named " + name);
		}, headers, rejections, writer);
	}

	/**
	 * Creates the support, with the condition beans rules may name.
	 * @param rules the rules in force
	 * @param enforcer decides requests under the rules
	 * @param addresses resolves client addresses
	 * @param keyResolvers finds the key-resolver bean of a name (or alias), for {@code bean:<name>} keys
	 * @param conditions finds the condition bean of a name, for {@code condition=bean:<name>}
	 * @param headers builds the rate-limit headers
	 * @param rejections builds the responses to refused requests
	 * @param writer writes headers and responses
	 */
	public ServletRateLimitSupport(RateLimitRules rules, RateLimitEnforcer enforcer, ClientAddressResolver addresses,
			Function<String, RateLimitKeyResolver> keyResolvers, Function<String, RateLimitCondition> conditions,
			RateLimitHeaders headers, RateLimitRejectionHandler rejections, RateLimitResponseWriter writer) {
		this.conditions = conditions;
		this.rules = rules;
		this.enforcer = enforcer;
		this.addresses = addresses;
		this.keyResolvers = keyResolvers;
		this.headers = headers;
		this.rejections = rejections;
		this.writer = writer;
	}

	/**
	 * Applies the rules that run before authentication, for the {@link RateLimitFilter}.
	 * @param request the request
	 * @param response the response
	 * @return whether the request may go on
	 * @throws IOException when a refusal cannot be written
	 */
	boolean applyBeforeAuthentication(HttpServletRequest request, HttpServletResponse response) throws IOException {
		if (this.enforcer.screensAddresses()) {
			switch (this.enforcer.screen(clientAddress(request))) {
				case DENIED -> {
					this.writer.write(request, response,
							this.rejections.handle(RateLimitRejection.denied(request.getMethod(), request.getRequestURI())));
					return false;
				}
				case ALLOWED -> {
					request.setAttribute(ALLOWED, Boolean.TRUE);
					return true;
				}
				case CHECKED -> {
					// the rules decide
				}
			}
		}
		return apply(request, response, this.rules.matchBeforeAuthentication(request.getMethod(), path(request)));
	}

	/**
	 * Applies the rules that run after authentication, for the {@link RateLimitInterceptor}.
	 * @param request the request
	 * @param response the response
	 * @param handler the handler the request is about to reach
	 * @return whether the request may go on
	 * @throws IOException when a refusal cannot be written
	 */
	boolean applyAfterAuthentication(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws IOException {
		if (request.getAttribute(ALLOWED) != null) {
			return true;
		}
		return apply(request, response, this.rules.matchAfterAuthentication(request.getMethod(), path(request),
				(handler instanceof HandlerMethod method) ? method : null));
	}

	/**
	 * Decides a request under rules and writes what it needs: the headers, and when it is refused, the
	 * whole response.
	 * @param request the request
	 * @param response the response
	 * @param applicable the rules that apply, in order
	 * @return whether the request may go on
	 * @throws IOException when a refusal cannot be written
	 */
	private boolean apply(HttpServletRequest request, HttpServletResponse response, List<RateLimitRule> matched)
			throws IOException {
		List<RateLimitRule> applicable = RateLimitRules.withConditions(matched,
				(rule) -> this.resolvedConditions.computeIfAbsent(rule.condition(), this.conditions).applies(request));
		if (applicable.isEmpty()) {
			return true;
		}
		// budgets charge an IPv6 client under its network (ratelimit.ipv6-prefix-length)
		String clientAddress = this.addresses.budgetAddress(clientAddress(request));
		RequestKeys keys = new RequestKeys() {

			@Override
			public @Nullable String keyValue(RateLimitRule rule) {
				return ServletRateLimitSupport.this.keyValue(rule, request, clientAddress);
			}

			@Override
			public String clientAddress() {
				return clientAddress;
			}

			@Override
			public @Nullable String header(String name) {
				return request.getHeader(name);
			}

			@Override
			public boolean fromTrustedProxy() {
				return ServletRateLimitSupport.this.addresses.isTrustedProxy(request.getRemoteAddr());
			}

		};
		RateLimitVerdict verdict = this.enforcer.enforce(() -> request.getMethod() + " " + request.getRequestURI(),
				applicable, keys);
		// the headers announce every rule applied to the request, in the filter and in the interceptor
		@SuppressWarnings("unchecked")
		List<AppliedLimit> earlier = (List<AppliedLimit>) request.getAttribute(APPLIED);
		verdict = verdict.after(earlier);
		request.setAttribute(APPLIED, verdict.applied());
		this.writer.writeHeaders(response, this.headers.of(verdict));
		if (verdict.allowed()) {
			if (!verdict.counted().isEmpty()) {
				// taken now, settled once the response's final status is known (RateLimitFilter)
				@SuppressWarnings("unchecked")
				List<StatusCharge> counted = (List<StatusCharge>) request.getAttribute(COUNTED);
				if (counted == null) {
					counted = new ArrayList<>(verdict.counted().size());
					request.setAttribute(COUNTED, counted);
				}
				counted.addAll(verdict.counted());
			}
			return true;
		}
		this.writer.write(request, response, this.rejections
			.handle(RateLimitRejection.of(request.getMethod(), request.getRequestURI(), verdict)));
		return false;
	}

	/**
	 * Settles the charges a request took under rules that count responses by status ({@code count-statuses})
	 * once its final status is known, for the {@link RateLimitFilter} once the chain has returned: at once for
	 * a request the chain answered; for one it left asynchronous ({@code CompletableFuture},
	 * {@code DeferredResult}, {@code Callable}, {@code StreamingResponseBody}), when it completes, with the
	 * status it ends with. A request whose client went away keeps its charges.
	 * @param request the request
	 * @param response the response
	 * @param failure what the chain threw, or {@code null}: an exception nobody handled ends as the 500 the
	 * container sends, unless the response was committed already
	 */
	void settleCounted(HttpServletRequest request, HttpServletResponse response, @Nullable Throwable failure) {
		@SuppressWarnings("unchecked")
		List<StatusCharge> counted = (List<StatusCharge>) request.getAttribute(COUNTED);
		if (counted == null) {
			return;
		}
		if (failure != null) {
			request.removeAttribute(COUNTED);
			if (!DisconnectedClientHelper.isClientDisconnectedException(failure)) {
				this.enforcer.settle(counted, response.isCommitted() ? response.getStatus() : 500);
			}
			return;
		}
		if (request.isAsyncStarted()) {
			request.getAsyncContext().addListener(new AsyncSettlement(counted), request, response);
			return;
		}
		request.removeAttribute(COUNTED);
		this.enforcer.settle(counted, response.getStatus());
	}

	/**
	 * Settles the charges of an asynchronous request when it completes, with its final status; keeps them when
	 * its client went away.
	 */
	private final class AsyncSettlement implements AsyncListener {

		private final List<StatusCharge> counted;

		private volatile boolean disconnected;

		AsyncSettlement(List<StatusCharge> counted) {
			this.counted = counted;
		}

		@Override
		public void onComplete(AsyncEvent event) {
			event.getSuppliedRequest().removeAttribute(COUNTED);
			Object error = event.getSuppliedRequest().getAttribute(RequestDispatcher.ERROR_EXCEPTION);
			if (this.disconnected
					|| (error instanceof Throwable thrown && DisconnectedClientHelper.isClientDisconnectedException(thrown))) {
				return;
			}
			ServletRateLimitSupport.this.enforcer.settle(this.counted,
					((HttpServletResponse) event.getSuppliedResponse()).getStatus());
		}

		@Override
		public void onError(AsyncEvent event) {
			if (event.getThrowable() != null && DisconnectedClientHelper.isClientDisconnectedException(event.getThrowable())) {
				this.disconnected = true;
			}
		}

		@Override
		public void onTimeout(AsyncEvent event) {
			// Spring MVC answers the timeout (503) and completes: onComplete settles with that status
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
			// started again (a second asynchronous step): follow it to its end
			event.getAsyncContext().addListener(this, event.getSuppliedRequest(), event.getSuppliedResponse());
		}

	}

	/**
	 * Returns the client address of a request, as the {@code ip} key reads it.
	 * @param request the request
	 * @return the address
	 */
	String clientAddress(HttpServletRequest request) {
		return this.addresses.resolve(request.getRemoteAddr(), (name) -> Collections.list(request.getHeaders(name)));
	}

	private @Nullable String keyValue(RateLimitRule rule, HttpServletRequest request, String clientAddress) {
		RuleKey key = rule.key();
		if (key instanceof RuleKey.ClientAddress) {
			return clientAddress;
		}
		if (key instanceof RuleKey.Header header) {
			return request.getHeader(header.name());
		}
		if (key instanceof RuleKey.Param param) {
			return parameter(request, param.name());
		}
		if (key instanceof RuleKey.Principal) {
			return (request.getUserPrincipal() != null) ? request.getUserPrincipal().getName() : null;
		}
		if (key instanceof RuleKey.Bean bean) {
			// a key resolver is application code: what it throws charges the client address
			return this.resolvedKeyResolvers.computeIfAbsent(bean.name(), this.keyResolvers).resolveKey(request);
		}
		throw new IllegalStateException("Rate-limit rule '" + rule.name() + "' has a key (" + key.spelling()
				+ ") that this stack does not read");
	}

	/**
	 * Returns a parameter's value, failing when the server could not parse the parameters (a malformed
	 * query string, more parameters than it accepts): that request's key cannot be read, and is not
	 * missing.
	 */
	private static @Nullable String parameter(HttpServletRequest request, String name) {
		String value = request.getParameter(name);
		if (value == null && request.getAttribute(PARAMETER_PARSE_FAILED) != null) {
			throw new IllegalArgumentException("The server could not parse the request's parameters: "
					+ request.getAttribute(PARAMETER_PARSE_FAILED + "_reason"));
		}
		return value;
	}

	/**
	 * Returns the path of a request as rules match it: the path a handler is looked up by, as the
	 * servlet container decoded and normalized it, whatever it looks like on the wire (encoded
	 * characters, path parameters such as {@code ;jsessionid}, repeated slashes), without the context
	 * path, and without the servlet path of a servlet mapped to a path prefix
	 * ({@code spring.mvc.servlet.path}).
	 * @param request the request
	 * @return the path
	 */
	private static PathContainer path(HttpServletRequest request) {
		HttpServletMapping mapping = request.getHttpServletMapping();
		String pathInfo = request.getPathInfo();
		String path = (mapping != null && mapping.getMappingMatch() == MappingMatch.PATH) ? pathInfo
				: request.getServletPath() + ((pathInfo != null) ? pathInfo : "");
		// decoded already: encoded again so that a '%' or ';' in it stands for itself
		return PathContainer.parsePath(UriUtils.encodePath((path == null || path.isEmpty()) ? "/" : path,
				StandardCharsets.UTF_8));
	}

}

package dev.ratelimit.web.servlet;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.web.ClientAddressResolver;
import dev.ratelimit.web.RateLimitEnforcer;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RateLimitRejection;
import dev.ratelimit.web.RateLimitRejectionHandler;
import dev.ratelimit.web.RateLimitRule;
import dev.ratelimit.web.RateLimitRules;
import dev.ratelimit.web.RateLimitVerdict;

import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * The servlet glue of rate limiting: before a handler runs, asks the {@link RateLimitRules} which rules
 * apply to the request, reads each rule's key from it, has the {@link RateLimitEnforcer} decide, sets
 * the rate-limit headers, and answers a refused request with the
 * {@link RateLimitRejectionHandler}'s response.
 */
public final class RateLimitInterceptor implements HandlerInterceptor {

	private final RateLimitRules rules;

	private final RateLimitEnforcer enforcer;

	private final ClientAddressResolver addresses;

	private final Map<String, RateLimitKeyResolver> keyResolvers;

	private final RateLimitHeaders headers;

	private final RateLimitRejectionHandler rejections;

	private final RateLimitResponseWriter writer;

	/**
	 * Creates an interceptor.
	 * @param rules the rules in force
	 * @param enforcer decides requests under them
	 * @param addresses resolves client addresses
	 * @param keyResolvers the key-resolver beans by name, for {@code bean:<name>} keys
	 * @param headers builds the rate-limit headers
	 * @param rejections builds the responses to refused requests
	 * @param writer writes headers and responses
	 */
	public RateLimitInterceptor(RateLimitRules rules, RateLimitEnforcer enforcer, ClientAddressResolver addresses,
			Map<String, RateLimitKeyResolver> keyResolvers, RateLimitHeaders headers,
			RateLimitRejectionHandler rejections, RateLimitResponseWriter writer) {
		this.rules = rules;
		this.enforcer = enforcer;
		this.addresses = addresses;
		this.keyResolvers = Map.copyOf(keyResolvers);
		this.headers = headers;
		this.rejections = rejections;
		this.writer = writer;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws Exception {
		if (request.getDispatcherType() != DispatcherType.REQUEST) {
			return true;
		}
		List<RateLimitRule> applicable = this.rules.match(request.getMethod(), path(request),
				(handler instanceof HandlerMethod method) ? method : null);
		if (applicable.isEmpty()) {
			return true;
		}
		String clientAddress = clientAddress(request);
		RateLimitVerdict verdict = this.enforcer.enforce(() -> request.getMethod() + " " + request.getRequestURI(),
				applicable, (rule) -> rule.budgetId(keyValue(rule, request, clientAddress), clientAddress));
		this.writer.writeHeaders(response, this.headers.of(verdict));
		if (verdict.allowed()) {
			return true;
		}
		this.writer.write(request, response, this.rejections
			.handle(RateLimitRejection.of(request.getMethod(), request.getRequestURI(), verdict)));
		return false;
	}

	/**
	 * Returns the client address of a request, as the {@code ip} key reads it.
	 * @param request the request
	 * @return the address
	 */
	public String clientAddress(HttpServletRequest request) {
		return this.addresses.resolve(request.getRemoteAddr(), (name) -> Collections.list(request.getHeaders(name)));
	}

	private @Nullable String keyValue(RateLimitRule rule, HttpServletRequest request, String clientAddress) {
		String argument = rule.keyArgument();
		return switch (rule.keyKind()) {
			case "ip" -> clientAddress;
			case "principal" -> (request.getUserPrincipal() != null) ? request.getUserPrincipal().getName() : null;
			case "header" -> request.getHeader(argument);
			case "param" -> request.getParameter(argument);
			// a key resolver is application code: whatever it throws follows the failure mode too
			default -> this.keyResolvers.get(argument).resolveKey(request);
		};
	}

	private static PathContainer path(HttpServletRequest request) {
		if (ServletRequestPathUtils.hasParsedRequestPath(request)) {
			return ServletRequestPathUtils.getParsedRequestPath(request).pathWithinApplication();
		}
		return RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication();
	}

}

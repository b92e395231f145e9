package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.MappingMatch;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.rules.flow.CallEnd;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitRequest;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.AfterResponse;

import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.http.HttpHeaders;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.PathContainer;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.util.DisconnectedClientHelper;
import org.springframework.web.util.UriUtils;

/**
 * Applies rules to a servlet request, for the {@link RateLimitFilter} and the {@link RateLimitInterceptor}
 * alike, by driving the {@link RateLimitFlow} with what is the servlet stack's own: reading the request
 * and its keys, writing the headers and, when it is refused, the {@link RateLimitRejectionHandler}'s
 * response, and settling the charges of {@code count-statuses} rules once the final status is known.
 *
 * @since 0.1.0
 */
public final class ServletRateLimitSupport {

	/** What a request settles: its {@link RequestSettlement}. */
	private static final String AFTER_RESPONSE = ServletRateLimitSupport.class.getName() + ".afterResponse";

	/** Where Tomcat says that it could not parse a request's parameters. */
	private static final String PARAMETER_PARSE_FAILED = "org.apache.catalina.parameter_parse_failed";

	private final RateLimitFlow flow;

	private final ClientAddressResolver addresses;

	private final Function<String, RateLimitKeyResolver> keyResolvers;

	private final Map<String, RateLimitKeyResolver> resolvedKeyResolvers = new ConcurrentHashMap<>();

	private final Function<String, RateLimitCondition> conditions;

	private final Map<String, RateLimitCondition> resolvedConditions = new ConcurrentHashMap<>();

	private final RateLimitRejectionHandler rejections;

	private final RateLimitResponseWriter writer;

	/**
	 * Creates the support.
	 * @param flow takes each request through the rules
	 * @param addresses resolves client addresses
	 * @param keyResolvers finds the key-resolver bean of a name (or alias), for {@code bean:<name>} keys
	 * @param conditions finds the condition bean of a name, for {@code condition=bean:<name>}
	 * @param rejections builds the responses to refused requests
	 * @param converters the application's message converters, that write the bodies of refusals in a media type the
	 * client accepts; asked for each time a body is written (cache them in the supplier)
	 */
	public ServletRateLimitSupport(RateLimitFlow flow, ClientAddressResolver addresses,
			Function<String, RateLimitKeyResolver> keyResolvers, Function<String, RateLimitCondition> conditions,
			RateLimitRejectionHandler rejections, Supplier<List<HttpMessageConverter<?>>> converters) {
		this.flow = flow;
		this.addresses = addresses;
		this.keyResolvers = keyResolvers;
		this.conditions = conditions;
		this.rejections = rejections;
		this.writer = new RateLimitResponseWriter(converters);
	}

	/**
	 * Applies the rules that run before authentication, for the {@link RateLimitFilter}.
	 * @param request the request
	 * @param response the response
	 * @return whether the request may go on
	 * @throws IOException when a refusal cannot be written
	 */
	boolean applyBeforeAuthentication(HttpServletRequest request, HttpServletResponse response) throws IOException {
		if (!this.flow.mayApplyBeforeAuthentication()) {
			return true;
		}
		return completed(this.flow.beforeAuthentication(new ServletExchange(request, response, null)));
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
		if (!this.flow.mayApplyAfterAuthentication()) {
			return true;
		}
		return completed(this.flow.afterAuthentication(
				new ServletExchange(request, response, (handler instanceof HandlerMethod method) ? method : null)));
	}

	/**
	 * Returns the request bound to the calling thread, for the keys of {@link dev.ratelimit.RateLimited} bean methods
	 * called while it is served: read only, never answered through.
	 * @return the request, or {@code null} when the thread serves none
	 */
	public @Nullable RateLimitRequest currentRequest() {
		if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes) {
			return new ServletExchange(attributes.getRequest(), null, null);
		}
		return null;
	}

	/**
	 * Answers a request whose handler threw {@link RateLimitExceededException} (a limited bean method it called was
	 * refused) as the rules answer a refused request: 429, the rate-limit headers of the limits that refused it,
	 * the {@link RateLimitRejectionHandler}'s body.
	 * @param request the request
	 * @param response its response, not committed yet
	 * @param refused the refusal
	 * @throws IOException when the response cannot be written
	 */
	public void refuse(HttpServletRequest request, HttpServletResponse response, RateLimitExceededException refused)
			throws IOException {
		completed(this.flow.refuse(new ServletExchange(request, response, null), refused).thenApply((written) -> false));
	}

	/**
	 * Answers a request whose handler called a method that Spring Framework's {@code @ConcurrencyLimit} refused
	 * ({@code InvocationRejectedException}): the {@link RateLimitRejectionHandler}'s body for a
	 * {@link dev.ratelimit.rules.flow.RateLimitRejection.Throttled} rejection.
	 * @param request the request
	 * @param response its response, not committed yet
	 * @param status the status to answer with: 503 or 429
	 * @param retryAfterSeconds the {@code Retry-After} to send, in whole seconds; zero to send none
	 * @throws IOException when the response cannot be written
	 */
	public void throttle(HttpServletRequest request, HttpServletResponse response, int status, long retryAfterSeconds)
			throws IOException {
		completed(this.flow.throttle(new ServletExchange(request, response, null), status, retryAfterSeconds)
			.thenApply((written) -> false));
	}

	/** The flow's answer on this blocking stack: complete when the flow returns. */
	private static boolean completed(CompletableFuture<Boolean> flow) throws IOException {
		try {
			return flow.join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof UncheckedIOException io) {
				throw io.getCause();
			}
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	/** A servlet request and its response, as the flow reads and writes them. */
	private final class ServletExchange implements RateLimitRequest {

		private final HttpServletRequest request;

		/** The response, {@code null} when the exchange only reads the request (a bean method's keys). */
		private final @Nullable HttpServletResponse response;

		private final @Nullable HandlerMethod handler;

		private @Nullable String clientAddress;

		ServletExchange(HttpServletRequest request, @Nullable HttpServletResponse response,
				@Nullable HandlerMethod handler) {
			this.request = request;
			this.response = response;
			this.handler = handler;
		}

		@Override
		public String method() {
			return this.request.getMethod();
		}

		@Override
		public PathContainer path() {
			return ServletRateLimitSupport.path(this.request);
		}

		@Override
		public String target() {
			return this.request.getRequestURI();
		}

		@Override
		public String clientAddress() {
			String address = this.clientAddress;
			if (address == null) {
				address = ServletRateLimitSupport.this.clientAddress(this.request);
				this.clientAddress = address;
			}
			return address;
		}

		@Override
		public String remoteAddress() {
			return this.request.getRemoteAddr();
		}

		@Override
		public @Nullable String header(String name) {
			return this.request.getHeader(name);
		}

		@Override
		public CompletionStage<@Nullable String> parameter(String name) {
			return CompletableFuture.completedFuture(ServletRateLimitSupport.parameter(this.request, name));
		}

		@Override
		public CompletionStage<@Nullable String> principal() {
			Principal principal = this.request.getUserPrincipal();
			return CompletableFuture.completedFuture((principal != null) ? principal.getName() : null);
		}

		@Override
		public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
			if (rule.key() instanceof RuleKey.Bean bean) {
				// a key resolver is application code: what it throws charges the client address
				return CompletableFuture.completedFuture(ServletRateLimitSupport.this.resolvedKeyResolvers
					.computeIfAbsent(bean.name(), ServletRateLimitSupport.this.keyResolvers)
					.resolveKey(this.request));
			}
			return RateLimitRequest.super.resolveKey(rule);
		}

		@Override
		public CompletionStage<@Nullable Boolean> condition(RateLimitRule rule) {
			String name = Objects.requireNonNull(rule.condition());
			return CompletableFuture.completedFuture(ServletRateLimitSupport.this.resolvedConditions
				.computeIfAbsent(name, ServletRateLimitSupport.this.conditions)
				.applies(this.request));
		}

		@Override
		public CompletableFuture<@Nullable HandlerMethod> handler(boolean worthLookingUp) {
			return CompletableFuture.completedFuture(this.handler);
		}

		@Override
		public @Nullable Object getAttribute(String name) {
			return this.request.getAttribute(name);
		}

		@Override
		public void setAttribute(String name, Object value) {
			this.request.setAttribute(name, value);
		}

		@Override
		public boolean mayBlock() {
			return true;
		}

		@Override
		public void writeHeaders(HttpHeaders headers) {
			ServletRateLimitSupport.this.writer.writeHeaders(response(), headers);
		}

		@Override
		public CompletableFuture<Void> reject(RateLimitRejection rejection) {
			try {
				ServletRateLimitSupport.this.writer.write(this.request, response(),
						ServletRateLimitSupport.this.rejections.handle(rejection));
				return CompletableFuture.completedFuture(null);
			}
			catch (IOException ex) {
				return CompletableFuture.failedFuture(new UncheckedIOException(ex));
			}
		}

		private HttpServletResponse response() {
			return Objects.requireNonNull(this.response, "this exchange only reads the request");
		}

		@Override
		public void settleAfter(AfterResponse after) {
			// settled by the RateLimitFilter: by status as the response commits, the rest once it is complete
			RequestSettlement settlement = (RequestSettlement) this.request.getAttribute(AFTER_RESPONSE);
			if (settlement == null) {
				settlement = new RequestSettlement();
				this.request.setAttribute(AFTER_RESPONSE, settlement);
			}
			settlement.add(after);
		}

	}

	/**
	 * Returns the response the chain writes: one that settles the charges of {@code count-statuses} rules just before
	 * its status is committed, so that the client's next request finds them settled, and that keeps (and by default
	 * hides) the headers {@code cost-from} rules read the actual cost from, when a rule reads one.
	 * @param request the request
	 * @param response the container's response
	 * @return the response to hand down the chain
	 */
	HttpServletResponse responseFor(HttpServletRequest request, HttpServletResponse response) {
		if (!this.flow.mayApplyBeforeAuthentication() && !this.flow.mayApplyAfterAuthentication()) {
			return response;
		}
		// only a response whose status may be given back is watched for its commit: the others go as they are
		HttpServletResponse watched = this.flow.countsStatuses()
				? new CommitWatchingResponse(response, (status) -> settleStatus(request, status)) : response;
		Map<String, Boolean> headers = this.flow.costHeaders();
		return headers.isEmpty() ? watched : new CostHeaderResponse(watched, headers);
	}

	/**
	 * Settles, on the calling thread, the charges of {@code count-statuses} rules a request took, by the status its
	 * response is about to be committed with; Redis has answered when it returns.
	 */
	private void settleStatus(ServletRequest request, int status) {
		if (request.getAttribute(AFTER_RESPONSE) instanceof RequestSettlement settlement) {
			AfterResponse charges = settlement.takeStatusCharges();
			if (!charges.isEmpty()) {
				this.flow.end(charges, CallEnd.completed(status, ResponseCost.Actual.NONE), true);
			}
		}
	}

	/**
	 * The actual costs a response tells, in the headers its handler set; none when a later stage refused the request
	 * (its handler never ran: what it reserved is given back).
	 */
	private static ResponseCost.Actual costs(ServletRequest request, HttpServletResponse response) {
		if (request.getAttribute(RateLimitFlow.REFUSED) != null) {
			return ResponseCost.Actual.NOTHING;
		}
		return (response instanceof CostHeaderResponse reading) ? ResponseCost.fromHeaders(reading::cost)
				: ResponseCost.fromHeaders(response::getHeader);
	}

	/**
	 * Settles what a request took once its response is complete, for the {@link RateLimitFilter} once the chain has
	 * returned: the charges of rules that count responses by status ({@code count-statuses}) by its final status,
	 * and the slots of {@code concurrency} rules given back; at once for a request the chain answered; for one it left
	 * asynchronous ({@code CompletableFuture}, {@code DeferredResult}, {@code Callable}, {@code StreamingResponseBody}),
	 * when it completes, with the status it ends with. A request whose client went away keeps its charges, and gives
	 * its slots back.
	 * @param request the request
	 * @param response the response
	 * @param failure what the chain threw, or {@code null}: an exception nobody handled ends as the 500 the
	 * container sends, unless the response was committed already
	 */
	void settleAfterResponse(HttpServletRequest request, HttpServletResponse response, @Nullable Throwable failure) {
		if (!(request.getAttribute(AFTER_RESPONSE) instanceof RequestSettlement settlement)) {
			return;
		}
		if (failure != null) {
			request.removeAttribute(AFTER_RESPONSE);
			AfterResponse after = settlement.takeAll();
			if (DisconnectedClientHelper.isClientDisconnectedException(failure)) {
				this.flow.end(after, CallEnd.abandoned(), false);
			}
			else if (!after.isEmpty()) {
				this.flow.end(after,
						CallEnd.completed(response.isCommitted() ? response.getStatus() : 500, costs(request, response)), true);
			}
			return;
		}
		if (request.isAsyncStarted()) {
			request.getAsyncContext().addListener(new AsyncSettlement(settlement), request, response);
			return;
		}
		request.removeAttribute(AFTER_RESPONSE);
		AfterResponse after = settlement.takeAll();
		if (!after.isEmpty()) {
			// the response is not complete yet: the container commits what is left of it once the filter returns
			this.flow.end(after, CallEnd.completed(response.getStatus(), costs(request, response)), true);
		}
	}

	/**
	 * Settles the charges of {@code count-statuses} rules when an asynchronous dispatch (Spring MVC's, with the result of
	 * an asynchronous handler) ends the request, for the {@link RateLimitFilter}: by the status the container is about
	 * to commit once the dispatch returns. The rest is settled when the request completes.
	 * @param request the request
	 * @param response the response
	 */
	void settleDispatched(HttpServletRequest request, HttpServletResponse response) {
		if (!request.isAsyncStarted() && !response.isCommitted()) {
			settleStatus(request, response.getStatus());
		}
	}

	/**
	 * Settles what an asynchronous request took when it completes, with its final status; keeps its charges when its
	 * client went away.
	 */
	private final class AsyncSettlement implements AsyncListener {

		private final RequestSettlement settlement;

		private volatile boolean disconnected;

		AsyncSettlement(RequestSettlement settlement) {
			this.settlement = settlement;
		}

		@Override
		public void onComplete(AsyncEvent event) {
			event.getSuppliedRequest().removeAttribute(AFTER_RESPONSE);
			// what its status settled as it was committed is gone already
			AfterResponse after = this.settlement.takeAll();
			if (after.isEmpty()) {
				return;
			}
			Object error = event.getSuppliedRequest().getAttribute(RequestDispatcher.ERROR_EXCEPTION);
			if (this.disconnected
					|| (error instanceof Throwable thrown && DisconnectedClientHelper.isClientDisconnectedException(thrown))) {
				ServletRateLimitSupport.this.flow.end(after, CallEnd.abandoned(), false);
				return;
			}
			HttpServletResponse response = (HttpServletResponse) event.getSuppliedResponse();
			ServletRateLimitSupport.this.flow.end(after, CallEnd.completed(response.getStatus(),
					costs(event.getSuppliedRequest(), response)), true);
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

	/**
	 * Returns the path patterns of an application's functional routes, as rules match them: each route's paths under
	 * those of the routes it is nested in; for the warning of rules whose paths no handler maps.
	 * @param function the application's router function
	 * @return the patterns
	 */
	public static java.util.Set<String> routePatterns(RouterFunction<?> function) {
		return FunctionalRoutePaths.of(function);
	}

}

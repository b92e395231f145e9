package dev.ratelimit.gateway;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.HeaderFields;
import dev.ratelimit.rules.flow.RateLimitCall;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.web.reactive.ReactorObservations;

import org.springframework.http.HttpHeaders;

/**
 * A request of a route as the flow sees it: the key the route's {@code KeyResolver} found, never empty (the
 * filter refuses or lets through requests without one before asking the limiter), and the headers the flow
 * writes, which the filter puts on the response. The filter answers a refusal itself.
 */
final class RouteExchange implements RateLimitCall {

	private final String routeId;

	private final String id;

	private final ContextView context;

	private Map<String, String> headers = Map.of();

	private AfterResponse after = AfterResponse.NONE;

	RouteExchange(String routeId, String id, ContextView context) {
		this.routeId = routeId;
		this.id = id;
		this.context = context;
	}

	/** What the request settles once the route's exchange completes: the slots of its requests in flight. */
	AfterResponse after() {
		return this.after;
	}

	/** The headers the flow wrote, for the filter's response. */
	Map<String, String> headers() {
		return this.headers;
	}

	@Override
	public String describe() {
		return "route '" + this.routeId + "'";
	}

	@Override
	public String clientAddress() {
		return this.id;
	}

	/** Returns what the route's {@code KeyResolver} found: a route's rule is keyed by it ({@code resolver}). */
	@Override
	public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
		return CompletableFuture.completedFuture(this.id);
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		// a route's rule is the request's only one
		return null;
	}

	@Override
	public void setAttribute(String name, Object value) {
	}

	@Override
	public boolean mayBlock() {
		return false;
	}

	@Override
	public <T> T observed(Supplier<T> call) {
		// with the request's server observation current, the decision's observation is its child
		return ReactorObservations.inRequest(this.context, call);
	}

	@Override
	public void writeHeaders(HttpHeaders headers) {
		Map<String, String> map = new LinkedHashMap<>();
		HeaderFields.forEach(headers, map::put);
		this.headers = map;
	}

	@Override
	public CompletableFuture<Void> reject(RateLimitRejection rejection) {
		// the RequestRateLimiter filter answers with its own status
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public void settleAfter(AfterResponse more) {
		// given back when the route's exchange completes (RouteSettlementFilter)
		this.after = this.after.and(more);
	}

}

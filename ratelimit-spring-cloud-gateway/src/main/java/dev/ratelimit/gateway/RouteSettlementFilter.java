package dev.ratelimit.gateway;


import reactor.core.publisher.Mono;

import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.CallEnd;
import dev.ratelimit.rules.flow.PendingSettlement;
import dev.ratelimit.rules.flow.RateLimitFlow;

import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

/**
 * Settles what the requests of routes took: the reservations of {@code ratelimit.cost-from} routes with the actual cost
 * the backend's answer tells, before the response is committed (removing the header unless exposed), and the slots
 * of requests in flight ({@code ratelimit.concurrency}) when the exchange completes: its response written, failed or
 * cancelled. First of the gateway's filters, it puts a holder in the
 * Reactor context of the rest of the chain, which {@link GatewayRateLimiter} fills when it lets a request through.
 *
 * @since 0.1.0
 */
public final class RouteSettlementFilter implements GlobalFilter, Ordered {

	private final RateLimitFlow flow;

	/**
	 * Creates the filter.
	 * @param flow gives the slots back
	 */
	public RouteSettlementFilter(RateLimitFlow flow) {
		this.flow = flow;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
		PendingSettlement held = new PendingSettlement();
		ServerHttpResponse response = exchange.getResponse();
		response.beforeCommit(() -> {
			// the reservations of cost-from routes, settled with the actual cost the backend's answer tells
			AfterResponse charges = held.takeCharges();
			if (charges.isEmpty()) {
				return Mono.empty();
			}
			int status = (response.getStatusCode() != null) ? response.getStatusCode().value() : 200;
			return Mono.fromFuture(() -> this.flow.end(charges, CallEnd.answered(status, response.getHeaders()), false));
		});
		return chain.filter(exchange).contextWrite((context) -> context.put(PendingSettlement.class, held)).doFinally((signal) -> {
			AfterResponse after = held.close();
			if (!after.isEmpty()) {
				this.flow.end(after, CallEnd.abandoned(), false);
			}
		});
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}

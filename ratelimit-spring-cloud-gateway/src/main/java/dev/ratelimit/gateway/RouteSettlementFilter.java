package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;

import reactor.core.publisher.Mono;

import dev.ratelimit.web.AfterResponse;
import dev.ratelimit.web.RateLimitFlow;

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
		Held held = new Held();
		ServerHttpResponse response = exchange.getResponse();
		response.beforeCommit(() -> {
			// the reservations of cost-from routes, settled with the actual cost the backend's answer tells
			AfterResponse charges = held.takeCharges();
			if (charges.isEmpty()) {
				return Mono.empty();
			}
			int status = (response.getStatusCode() != null) ? response.getStatusCode().value() : 200;
			return Mono.fromFuture(() -> this.flow.settleAnswered(charges, status, response.getHeaders()));
		});
		return chain.filter(exchange).contextWrite((context) -> context.put(Held.class, held)).doFinally((signal) -> {
			AfterResponse after = held.take();
			if (!after.isEmpty()) {
				this.flow.release(after);
			}
		});
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	/** What the requests of one exchange hold until it completes. */
	static final class Held {

		private final List<AfterResponse> held = new ArrayList<>(1);

		synchronized void add(AfterResponse after) {
			this.held.add(after);
		}

		/** The charges to settle before the response is committed; the slots stay until the exchange completes. */
		synchronized AfterResponse takeCharges() {
			AfterResponse charges = AfterResponse.NONE;
			List<AfterResponse> slots = new ArrayList<>(this.held.size());
			for (AfterResponse each : this.held) {
				charges = charges.and(new AfterResponse(each.charges(), List.of()));
				slots.add(new AfterResponse(List.of(), each.slots()));
			}
			this.held.clear();
			this.held.addAll(slots);
			return charges;
		}

		synchronized AfterResponse take() {
			AfterResponse all = AfterResponse.NONE;
			for (AfterResponse each : this.held) {
				all = all.and(each);
			}
			this.held.clear();
			return all;
		}

	}

}

package dev.ratelimit.web.reactive;

import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Applies the rules from properties to every WebFlux request before the filters behind it see it, Spring
 * Security's among them (its order, {@code ratelimit.filter.order}, is -101 by default, ahead of
 * Security's -100). Rules keyed by {@code principal}, which need an authenticated request, and the
 * rules of {@link dev.ratelimit.RateLimited} handlers are the {@link RateLimitHandlerWebFilter}'s. No
 * thread waits for Redis: the exchange goes on when the decision arrives.
 *
 * @since 0.1.0
 */
public final class RateLimitWebFilter implements WebFilter, Ordered {

	private final ReactiveRateLimitSupport support;

	private final int order;

	/**
	 * Creates a filter.
	 * @param support applies the rules to exchanges
	 * @param order the filter's order
	 */
	public RateLimitWebFilter(ReactiveRateLimitSupport support, int order) {
		this.support = support;
		this.order = order;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		return this.support.settling(exchange, this.support.applyBeforeAuthentication(exchange)
			.flatMap((allowed) -> allowed ? chain.filter(exchange) : Mono.empty()));
	}

	@Override
	public int getOrder() {
		return this.order;
	}

}

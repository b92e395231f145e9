package dev.ratelimit.web.reactive;

import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Applies, once Spring Security has authenticated the exchange and before its handler runs, the rules
 * that need the handler or an authenticated user: those of {@link dev.ratelimit.RateLimited} WebFlux
 * handler methods, and those from properties keyed by {@code principal}. The other rules are the
 * {@link RateLimitWebFilter}'s.
 *
 * @since 0.1.0
 */
public final class RateLimitHandlerWebFilter implements WebFilter, Ordered {

	/** After Spring Security's filter chain (-100), so that the exchange's principal is known. */
	public static final int DEFAULT_ORDER = 0;

	private final ReactiveRateLimitSupport support;

	/**
	 * Creates a filter.
	 * @param support applies the rules to exchanges
	 */
	public RateLimitHandlerWebFilter(ReactiveRateLimitSupport support) {
		this.support = support;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		return this.support.settling(exchange, this.support.applyAfterAuthentication(exchange)
			.flatMap((allowed) -> allowed ? chain.filter(exchange) : Mono.empty()));
	}

	@Override
	public int getOrder() {
		return DEFAULT_ORDER;
	}

}

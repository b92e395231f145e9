package dev.ratelimit.web.reactive;

import reactor.core.publisher.Mono;

import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Puts each exchange in the Reactor context of its chain, as Spring's {@link ServerWebExchangeContextFilter} does,
 * where the {@link dev.ratelimit.RateLimited} bean methods returning a publisher that a handler calls read their
 * request's keys: only once such a method has a key the request gives
 * ({@link RateLimitRuleRegistry#methodRulesReadRequests()}), so that other applications pay nothing for it.
 *
 * @since 0.1.0
 */
public final class RateLimitExchangeContextFilter implements WebFilter {

	private final RateLimitRuleRegistry rules;

	/**
	 * Creates a filter.
	 * @param rules the rules in force, which tell whether a limited bean method reads requests
	 */
	public RateLimitExchangeContextFilter(RateLimitRuleRegistry rules) {
		this.rules = rules;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		if (!this.rules.methodRulesReadRequests()) {
			return chain.filter(exchange);
		}
		return chain.filter(exchange)
			.contextWrite((context) -> context.put(ServerWebExchangeContextFilter.EXCHANGE_CONTEXT_ATTRIBUTE, exchange));
	}

}

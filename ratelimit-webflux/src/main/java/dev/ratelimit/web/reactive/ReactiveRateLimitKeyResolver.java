package dev.ratelimit.web.reactive;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Decides whose budget a WebFlux request charges, without blocking. Declare one as a bean and name it in
 * a rule's key as {@code bean:<beanName>}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ReactiveRateLimitKeyResolver {

	/**
	 * Returns the key of the exchange's budget.
	 * @param exchange the exchange
	 * @return the key; empty (or blank) to charge the request under its client address, as the rule's
	 * {@code missing-key} says; an error charges it under its client address
	 */
	Mono<String> resolveKey(ServerWebExchange exchange);

}

package dev.ratelimit.web.reactive;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Decides, without blocking, whether a rule applies to a WebFlux exchange, for what paths and methods
 * cannot say. Declare one as a bean and name it in a rule's {@code condition} as {@code bean:<beanName>}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ReactiveRateLimitCondition {

	/**
	 * Returns whether the rule applies to the exchange; an error or an empty answer counts as applying.
	 * @param exchange the exchange
	 * @return {@code true} to apply the rule, {@code false} to skip it for this exchange
	 */
	Mono<Boolean> applies(ServerWebExchange exchange);

}

package dev.ratelimit.method;

import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

import dev.ratelimit.rules.flow.RateLimitRequest;

/**
 * Finds the web request a {@link dev.ratelimit.RateLimited} bean method returning a {@code Mono} or {@code Flux}
 * is subscribed in, from the Reactor context, so that its limits keyed by {@code ip}, {@code header:<Name>},
 * {@code param:<name>}, {@code principal} or {@code bean:<name>} read it as the web stack's rules do. The WebFlux
 * stack registers one (the exchange that Spring's {@code ServerWebExchangeContextFilter} puts in the context).
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ReactiveRateLimitCurrentRequest {

	/**
	 * Returns the request a subscription is made for, for reading its client address and keys only.
	 * @param context the subscription's Reactor context
	 * @return the request, or {@code null} when the context holds none
	 */
	@Nullable RateLimitRequest current(ContextView context);

}

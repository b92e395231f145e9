package dev.ratelimit.rules.flow;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;

/**
 * A call that property rules match by method and path, and annotated handlers by handler: a servlet or WebFlux
 * request, a gRPC call (an HTTP/2 {@code POST} to {@code /package.Service/Method}). It is what
 * {@link RateLimitFlow#beforeAuthentication} and {@link RateLimitFlow#afterAuthentication} take.
 *
 * @since 0.1.0
 */
public interface RateLimitRequest extends RateLimitCall {

	/**
	 * Returns the request's method, such as {@code GET}.
	 * @return the method
	 */
	String method();

	/**
	 * Returns the request's path as rules match it.
	 * @return the path
	 */
	PathContainer path();

	/**
	 * Returns the request's path as the problem body names it, as the client wrote it.
	 * @return the path
	 */
	String target();

	/**
	 * Describes the request for debug logs.
	 * @return a description, such as {@code GET /api/orders}
	 */
	@Override
	default String describe() {
		return method() + " " + target();
	}

	/**
	 * Returns the request's client address, as the {@code ip} key reads it (the trusted proxies' header).
	 * @return the address
	 */
	@Override
	String clientAddress();

	/**
	 * Returns the handler the request is about to reach, for the rules of annotated handlers.
	 * @param worthLookingUp {@code false} when no handler has rules of its own, so that a stack that must look the
	 * handler up need not
	 * @return the handler method, or {@code null} when the handler is not one (or the stack has no handler methods)
	 */
	default CompletableFuture<@Nullable HandlerMethod> handler(boolean worthLookingUp) {
		return CompletableFuture.completedFuture(null);
	}

}

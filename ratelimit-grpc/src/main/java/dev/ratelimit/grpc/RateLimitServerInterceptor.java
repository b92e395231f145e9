package dev.ratelimit.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;

import org.springframework.core.Ordered;

/**
 * Applies the rate-limit rules to the calls of gRPC services. Two of them take each call, as the servlet filter and
 * interceptor take each request: the {@linkplain Turn#BEFORE_AUTHENTICATION first}, ahead of Spring Security's gRPC
 * authentication, applies the rules that match the call's full method name ({@code /helloworld.Greeter/SayHello})
 * but those keyed by {@code principal}; the {@linkplain Turn#AFTER_AUTHENTICATION second}, behind it, those keyed
 * by {@code principal}. A streaming call is charged once, when it starts, unless a rule charges each message its
 * client sends ({@code charge-per-message}): the call's start pays for the first, and each further one is decided
 * before its service sees it.
 * <p>
 * A refused call ends with {@code RESOURCE_EXHAUSTED}, a {@code google.rpc.RetryInfo} detail and the rate-limit
 * values in its trailers; one that cannot be decided under {@code fail-closed} with {@code UNAVAILABLE}. An allowed
 * call carries the rate-limit values in its response headers.
 *
 * @since 0.1.0
 */
public final class RateLimitServerInterceptor implements ServerInterceptor, Ordered {

	/**
	 * The order of the first turn: ahead of the server's observation ({@code 0}), Spring gRPC's exception handling
	 * ({@code 1}) and Spring Security's gRPC authentication ({@code 2}), so that a refused call costs none of them.
	 */
	public static final int BEFORE_AUTHENTICATION_ORDER = -20;

	/**
	 * The order of the second turn: behind Spring Security's gRPC authentication ({@code 2}) and the interceptor that
	 * carries the servlet container's security context into gRPC calls ({@code 3}); inside the exception handling,
	 * which so ends the calls that {@link dev.ratelimit.RateLimited} bean methods refuse.
	 */
	public static final int AFTER_AUTHENTICATION_ORDER = 20;

	/** The turns a call takes. */
	public enum Turn {

		/** The rules but those keyed by {@code principal}, before authentication. */
		BEFORE_AUTHENTICATION,

		/** The rules keyed by {@code principal}, once the call is authenticated. */
		AFTER_AUTHENTICATION

	}

	private final GrpcRateLimitSupport support;

	private final Turn turn;

	/**
	 * Creates an interceptor.
	 * @param support applies the rules to gRPC calls
	 * @param turn the rules it applies
	 */
	public RateLimitServerInterceptor(GrpcRateLimitSupport support, Turn turn) {
		this.support = support;
		this.turn = turn;
	}

	@Override
	public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
			ServerCallHandler<Q, R> next) {
		return (this.turn == Turn.BEFORE_AUTHENTICATION) ? this.support.beforeAuthentication(call, headers, next)
				: this.support.afterAuthentication(call, headers, next);
	}

	@Override
	public int getOrder() {
		return (this.turn == Turn.BEFORE_AUTHENTICATION) ? BEFORE_AUTHENTICATION_ORDER : AFTER_AUTHENTICATION_ORDER;
	}

	/**
	 * Returns the rules this interceptor applies.
	 * @return its turn
	 */
	public Turn getTurn() {
		return this.turn;
	}

}

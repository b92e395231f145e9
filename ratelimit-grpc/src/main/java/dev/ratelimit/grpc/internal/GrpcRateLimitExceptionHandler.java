package dev.ratelimit.grpc.internal;

import io.grpc.StatusException;
import org.jspecify.annotations.Nullable;

import org.springframework.grpc.server.exception.GrpcExceptionHandler;

/**
 * Ends a gRPC call whose service threw {@link dev.ratelimit.RateLimitExceededException} (a
 * {@link dev.ratelimit.RateLimited} bean method it called was refused) as the rules end a refused call, instead of
 * the {@code UNKNOWN} status of an exception nobody handles.
 *
 * @since 0.1.0
 */
public final class GrpcRateLimitExceptionHandler implements GrpcExceptionHandler {

	private final GrpcRateLimitSupport support;

	/**
	 * Creates the handler.
	 * @param support builds the end of a refused call
	 */
	public GrpcRateLimitExceptionHandler(GrpcRateLimitSupport support) {
		this.support = support;
	}

	@Override
	public @Nullable StatusException handleException(Throwable exception) {
		return this.support.refusal(exception);
	}

}

package dev.ratelimit.grpc;

import java.time.Duration;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import io.grpc.Metadata;
import io.grpc.StatusException;
import io.grpc.protobuf.StatusProto;

import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.RateLimitRejection;

/**
 * How a refused gRPC call ends: the status of its refusal ({@code RESOURCE_EXHAUSTED} over a limit,
 * {@code UNAVAILABLE} when no decision could be reached under {@code fail-closed}, {@code INVALID_ARGUMENT} when the
 * key is missing, {@code PERMISSION_DENIED} from a denied address), a {@code google.rpc.Status} detail with a
 * {@code google.rpc.RetryInfo} when retrying later helps, and the rate-limit values in the trailers.
 */
final class GrpcRefusals {

	private GrpcRefusals() {
	}

	/**
	 * Returns the end of a refused call, as an exception whose status and trailers close it.
	 * @param rejection why it is refused
	 * @param exchange the call, with the rate-limit values the flow wrote
	 * @return the status and trailers
	 */
	static StatusException of(RateLimitRejection rejection, GrpcExchange exchange) {
		Code code;
		Duration retryDelay = null;
		if (rejection instanceof RateLimitRejection.Denied) {
			code = Code.PERMISSION_DENIED;
		}
		else if (rejection instanceof RateLimitRejection.MissingKey) {
			code = Code.INVALID_ARGUMENT;
		}
		else if (rejection instanceof RateLimitRejection.Unavailable) {
			code = Code.UNAVAILABLE;
			retryDelay = Duration.ofSeconds(rejection.retryAfterSeconds());
		}
		else {
			code = Code.RESOURCE_EXHAUSTED;
			retryDelay = retryDelay(rejection);
		}
		com.google.rpc.Status.Builder status = com.google.rpc.Status.newBuilder()
			.setCode(code.getNumber())
			.setMessage(rejection.detail());
		if (retryDelay != null) {
			status.addDetails(Any.pack(RetryInfo.newBuilder()
				.setRetryDelay(com.google.protobuf.Duration.newBuilder()
					.setSeconds(retryDelay.getSeconds())
					.setNanos(retryDelay.getNano()))
				.build()));
		}
		Metadata trailers = new Metadata();
		exchange.addHeadersTo(trailers);
		return StatusProto.toStatusException(status.build(), trailers);
	}

	/**
	 * The longest wait among the limits that refused the call, as precise as the limiters tell it (the
	 * {@code Retry-After} trailer has it in whole seconds), at least one millisecond.
	 */
	private static Duration retryDelay(RateLimitRejection rejection) {
		Duration longest = Duration.ofMillis(1);
		for (AppliedLimit limit : rejection.violated()) {
			Duration wait = limit.decision().retryAfter();
			if (wait.compareTo(longest) > 0) {
				longest = wait;
			}
		}
		return longest;
	}

}

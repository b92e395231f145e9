package dev.ratelimit.client;

import java.time.Duration;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimiterUnavailableException;

/**
 * What a gRPC partner's answer says of its budget, and how a call the budget refuses ends on the client side: both
 * as our gRPC server speaks, a {@code RESOURCE_EXHAUSTED} with a {@code google.rpc.RetryInfo} detail (in
 * {@code grpc-status-details-bin}) and a {@code retry-after} trailer in seconds.
 */
final class GrpcAnswers {

	/** The trailer that tells the wait in whole seconds, as our gRPC server sends it. */
	static final Metadata.Key<String> RETRY_AFTER = Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER);

	private GrpcAnswers() {
	}

	/**
	 * Returns how long a partner's answer asks to be left alone: a {@code RESOURCE_EXHAUSTED} with a
	 * {@code RetryInfo} detail asks for its delay, else one with a {@code retry-after} trailer for that many seconds.
	 * @param status the call's status
	 * @param trailers its trailers
	 * @return the wait, {@code null} when the answer asks for none
	 */
	static @Nullable Duration waitAskedFor(Status status, Metadata trailers) {
		if (status.getCode() != Status.Code.RESOURCE_EXHAUSTED) {
			return null;
		}
		com.google.rpc.Status details = StatusProto.fromStatusAndTrailers(status, trailers);
		for (Any detail : details.getDetailsList()) {
			if (detail.is(RetryInfo.class)) {
				try {
					com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
					Duration wait = Duration.ofSeconds(delay.getSeconds(), delay.getNanos());
					return (wait.isNegative() || wait.isZero()) ? null : wait;
				}
				catch (InvalidProtocolBufferException ex) {
					// a detail that says nothing: the trailer may
				}
			}
		}
		String seconds = trailers.get(RETRY_AFTER);
		if (seconds == null) {
			return null;
		}
		try {
			long value = Long.parseLong(seconds.strip());
			return (value > 0) ? Duration.ofSeconds(value) : null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Returns how a call the budget refused ends on the client side, never having left.
	 * @param failure why the budget refused it
	 * @param partner the partner's name
	 * @return {@code RESOURCE_EXHAUSTED} (with {@code RetryInfo} and {@code retry-after}) over the limit,
	 * {@code UNAVAILABLE} when no decision could be reached under {@code fail-closed}, {@code INTERNAL} otherwise;
	 * the description names the budget
	 */
	static io.grpc.StatusException refusal(Throwable failure, String partner) {
		String budget = "ratelimit.clients." + partner;
		if (failure instanceof RateLimitExceededException exceeded) {
			Duration wait = exceeded.getRetryAfter();
			RateLimit limit = exceeded.getRefusals().get(0).limit();
			com.google.rpc.Status status = com.google.rpc.Status.newBuilder()
				.setCode(Code.RESOURCE_EXHAUSTED.getNumber())
				.setMessage("Rate limit '" + partner + "' of " + limit.limit() + " per " + limit.windowLabel()
						+ " exceeded (" + budget + "); the call was not sent, retry after " + ceilSeconds(wait)
						+ " seconds.")
				.addDetails(Any.pack(RetryInfo.newBuilder()
					.setRetryDelay(com.google.protobuf.Duration.newBuilder()
						.setSeconds(wait.getSeconds())
						.setNanos(wait.getNano()))
					.build()))
				.build();
			Metadata trailers = new Metadata();
			trailers.put(RETRY_AFTER, Long.toString(ceilSeconds(wait)));
			return StatusProto.toStatusException(status, trailers);
		}
		Status status = (failure instanceof RateLimiterUnavailableException) ? Status.UNAVAILABLE : Status.INTERNAL;
		return status.withDescription(budget + ": " + failure.getMessage()).withCause(failure).asException();
	}

	private static long ceilSeconds(Duration wait) {
		return wait.getSeconds() + ((wait.getNano() > 0) ? 1 : 0);
	}

}

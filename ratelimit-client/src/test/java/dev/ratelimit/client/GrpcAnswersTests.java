package dev.ratelimit.client;

import java.time.Duration;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.protobuf.StatusProto;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a gRPC partner's answer asks of its budget: the delay of a {@code RetryInfo}, else a {@code retry-after}
 * trailer, on {@code RESOURCE_EXHAUSTED} only.
 */
class GrpcAnswersTests {

	private static StatusException exhausted(Duration delay) {
		return StatusProto.toStatusException(com.google.rpc.Status.newBuilder()
			.setCode(Code.RESOURCE_EXHAUSTED.getNumber())
			.setMessage("over the limit")
			.addDetails(Any.pack(RetryInfo.newBuilder()
				.setRetryDelay(com.google.protobuf.Duration.newBuilder()
					.setSeconds(delay.getSeconds())
					.setNanos(delay.getNano()))
				.build()))
			.build());
	}

	@Test
	void aRetryInfoAsksForItsDelay() {
		StatusException answer = exhausted(Duration.ofMillis(1500));
		assertThat(GrpcAnswers.waitAskedFor(answer.getStatus(), answer.getTrailers()))
			.isEqualTo(Duration.ofMillis(1500));
	}

	@Test
	void withoutRetryInfoARetryAfterTrailerAsksForItsSeconds() {
		Metadata trailers = new Metadata();
		trailers.put(GrpcAnswers.RETRY_AFTER, "7");
		assertThat(GrpcAnswers.waitAskedFor(Status.RESOURCE_EXHAUSTED, trailers)).isEqualTo(Duration.ofSeconds(7));
		Metadata invalid = new Metadata();
		invalid.put(GrpcAnswers.RETRY_AFTER, "soon");
		assertThat(GrpcAnswers.waitAskedFor(Status.RESOURCE_EXHAUSTED, invalid)).isNull();
		assertThat(GrpcAnswers.waitAskedFor(Status.RESOURCE_EXHAUSTED, new Metadata())).isNull();
	}

	@Test
	void otherStatusesAskForNothing() {
		Metadata trailers = new Metadata();
		trailers.put(GrpcAnswers.RETRY_AFTER, "7");
		assertThat(GrpcAnswers.waitAskedFor(Status.UNAVAILABLE, trailers)).isNull();
		assertThat(GrpcAnswers.waitAskedFor(Status.OK, trailers)).isNull();
	}

}

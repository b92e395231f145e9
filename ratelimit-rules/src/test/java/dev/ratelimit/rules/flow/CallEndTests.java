package dev.ratelimit.rules.flow;

import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import dev.ratelimit.rules.ResponseCost;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How an entry point says a call ended: a gRPC status is an outcome of its own, read as an HTTP status in one place,
 * and a call refused later keeps its refusal's status while its reservations are given back.
 */
class CallEndTests {

	@Test
	void readsAGrpcStatusAsTheHttpStatusAGrpcGatewayAnswers() {
		// OK, INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED, UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, INTERNAL
		int[][] expected = { { 0, 200 }, { 3, 400 }, { 5, 404 }, { 8, 429 }, { 14, 503 }, { 4, 504 }, { 1, 499 },
				{ 13, 500 } };
		for (int[] pair : expected) {
			assertThat(((CallEnd.GrpcClosed) CallEnd.grpc(pair[0])).httpStatus()).as("code %d", pair[0])
				.isEqualTo(pair[1]);
		}
	}

	@Test
	void aCallRefusedLaterKeepsItsStatusAndGivesBackWhatItReserved() {
		assertThat(CallEnd.refusedLater(503, null))
			.isEqualTo(CallEnd.completed(503, ResponseCost.Actual.NOTHING));
		HttpHeaders headers = new HttpHeaders();
		assertThat(CallEnd.refusedLater(403, headers)).isEqualTo(new CallEnd.Answered(403, headers, true));
		assertThat(CallEnd.answered(200, headers)).isEqualTo(new CallEnd.Answered(200, headers, false));
	}

}

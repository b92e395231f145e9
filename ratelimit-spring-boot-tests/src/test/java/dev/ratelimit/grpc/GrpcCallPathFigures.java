package dev.ratelimit.grpc;

import java.util.List;
import java.util.Map;

import dev.ratelimit.testsupport.CallPathFigure;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A figure of docs/architecture.md, not a test (surefire runs it only when named:
 * {@code -Dtest=GrpcCallPathFigures}): the path of one allowed unary call on Spring Boot's Netty gRPC server (one
 * rule by full method name, keyed by the peer's address; warmed up by a first call), as {@link CallPathFigure}
 * prints it.
 */
class GrpcCallPathFigures {

	@Test
	void pathOfOneAllowedUnaryCall() {
		try (GrpcApp app = GrpcStack.NETTY.start(Map.of("ratelimit.rules.figures.paths", "/test.Greeter/SayHello",
				"ratelimit.rules.figures.limit", "1000000", "ratelimit.rules.figures.window", "1h"))) {
			CallPathFigure figure = CallPathFigure.measure("gRPC unary call (Netty server)", () -> {
				GrpcApp.Reply reply = app.call(TestGreeter.SAY_HELLO, "ann");
				assertThat(reply.code()).isEqualTo(Status.Code.OK);
				assertThat(reply.messages()).isEqualTo(List.of("hello ann"));
			});
			assertThat(figure.files()).contains("dev.ratelimit.grpc.RateLimitServerInterceptor",
					"dev.ratelimit.rules.internal.EngineFlow", "dev.ratelimit.redis.RedisRateLimiter");
		}
	}

}

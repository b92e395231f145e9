package dev.ratelimit.gateway;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RecordingObservationHandler;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A traced request through a real gateway route: the decision's observation is a child of the request's server
 * observation (read from the exchange's Reactor context), and nothing is left current on the server's event
 * loops.
 */
class GatewayRateLimiterTracingTests {

	private static Backend backend;

	private static TestGateway gateway;

	@BeforeAll
	static void start() {
		backend = Backend.start();
		Map<String, Object> properties = TestGateway.properties();
		TestGateway.route(properties, backend, "traced", "ratelimit.limit=100", "ratelimit.window=1h");
		gateway = TestGateway.start(properties, Recording.class);
	}

	@AfterAll
	static void stop() {
		gateway.close();
		backend.close();
	}

	@Test
	void parentsTheDecisionToTheRequestAndLeavesNothingCurrentOnTheLoops() throws Exception {
		RecordingObservationHandler recording = gateway.context().getBean(RecordingObservationHandler.class);
		for (int i = 0; i < 3; i++) {
			assertThat(gateway.get("/traced/" + i, "tracer").statusCode()).isEqualTo(200);
		}
		assertThat(recording.stopped("ratelimit.decision")).hasSize(3)
			.allSatisfy((decision) -> {
				ObservationView parent = decision.getParentObservation();
				assertThat(parent).isNotNull();
				assertThat(parent.getContextView()).isInstanceOf(ServerRequestObservationContext.class);
			});
		ObservationRegistry registry = gateway.context().getBean(ObservationRegistry.class);
		for (EventExecutor loop : gateway.context().getBean(ReactorResourceFactory.class).getLoopResources().onServer(true)) {
			assertThat(loop.submit(registry::getCurrentObservation).get(5, TimeUnit.SECONDS)).isNull();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Recording {

		@Bean
		RecordingObservationHandler recordingObservationHandler() {
			return new RecordingObservationHandler();
		}

	}

}

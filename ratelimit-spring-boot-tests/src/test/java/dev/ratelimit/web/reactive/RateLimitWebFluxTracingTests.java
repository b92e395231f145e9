package dev.ratelimit.web.reactive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.testsupport.RecordingObservationHandler;
import dev.ratelimit.web.StackApp;
import dev.ratelimit.web.StackApps;
import dev.ratelimit.web.WebStack;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Traced WebFlux requests on Netty whose decisions are in flight at once (Redis holds every call for a moment,
 * so that several requests interleave on each event loop): each decision's observation is a child of its own
 * request's server observation, and no observation is left current on any event loop afterwards.
 */
class RateLimitWebFluxTracingTests {

	private static final StackApps apps = new StackApps(Map.of("ratelimit.rules.traced.paths", "/open",
			"ratelimit.rules.traced.limit", "1000", "ratelimit.rules.traced.window", "1h",
			"management.tracing.sampling.probability", "1.0"), Recording.class);

	@AfterAll
	static void stop() {
		apps.close();
	}

	@Test
	void parentsEachDecisionToItsOwnRequestAndLeavesNothingCurrentOnTheLoops() throws Exception {
		StackApp app = apps.on(WebStack.WEBFLUX);
		RecordingObservationHandler recording = app.context().getBean(RecordingObservationHandler.class);
		// the first request connects and loads the script
		assertThat(app.get("/open", "X-Request", "warm-up").status()).isEqualTo(200);
		recording.clear();
		int requests = 12;
		ExecutorService clients = Executors.newFixedThreadPool(requests);
		RedisClient admin = RedisClient.create(RedisTestServer.shared().url());
		try (StatefulRedisConnection<String, String> connection = admin.connect()) {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> statuses = new ArrayList<>();
			for (int i = 0; i < requests; i++) {
				String id = "request-" + i;
				statuses.add(clients.submit(() -> {
					start.await();
					return app.get("/open", "X-Request", id).status();
				}));
			}
			// every decision waits for Redis at once: several of them on each event loop
			connection.sync().clientPause(300);
			start.countDown();
			for (Future<Integer> status : statuses) {
				assertThat(status.get(30, TimeUnit.SECONDS)).isEqualTo(200);
			}
		}
		finally {
			admin.shutdown();
			clients.shutdownNow();
		}
		List<Observation.Context> decisions = recording.stopped("ratelimit.decision");
		assertThat(decisions).hasSize(requests);
		List<String> parents = new ArrayList<>();
		for (Observation.Context decision : decisions) {
			ObservationView parent = decision.getParentObservation();
			assertThat(parent).as("the parent of a decision").isNotNull();
			assertThat(parent.getContextView()).isInstanceOf(ServerRequestObservationContext.class);
			ServerHttpRequest request = ((ServerRequestObservationContext) parent.getContextView()).getCarrier();
			parents.add(request.getHeaders().getFirst("X-Request"));
		}
		// each request's decision under that request, none under another's
		assertThat(parents).doesNotContainNull().doesNotHaveDuplicates().hasSize(requests);
		// nothing left current on the loops that served them
		ObservationRegistry registry = app.context().getBean(ObservationRegistry.class);
		for (EventExecutor loop : app.context().getBean(ReactorResourceFactory.class).getLoopResources().onServer(true)) {
			assertThat(loop.submit(registry::getCurrentObservation).get(5, TimeUnit.SECONDS)).as("current on %s", loop)
				.isNull();
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

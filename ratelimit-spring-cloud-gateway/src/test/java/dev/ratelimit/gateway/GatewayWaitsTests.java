package dev.ratelimit.gateway;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.Waiters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code ratelimit.max-wait} on a real Spring Cloud Gateway route, two gateway instances on one Redis: requests the
 * route's limit would refuse wait for their permits, without a thread held, and reach the backend in successive
 * windows, never more than the limit in one; a permit beyond {@code max-wait} is refused at once.
 */
class GatewayWaitsTests {

	private static final int LIMIT = 3;

	private static final int REQUESTS = 12;

	private static Backend backend;

	private static TestGateway first;

	private static TestGateway second;

	@BeforeAll
	static void start() {
		backend = Backend.start();
		Map<String, Object> properties = TestGateway.properties();
		TestGateway.route(properties, backend, "queue", "ratelimit.limit=" + LIMIT, "ratelimit.window=1s",
				"ratelimit.max-wait=10s");
		TestGateway.route(properties, backend, "hourly", "ratelimit.limit=1", "ratelimit.window=1h",
				"ratelimit.max-wait=2s");
		first = TestGateway.start(properties);
		properties.put("ratelimit.key-prefix", first.keyPrefix());
		second = TestGateway.start(properties);
	}

	@AfterAll
	static void stop() {
		first.close();
		second.close();
		backend.close();
	}

	@Test
	void waitersOnTwoGatewaysReachTheBackendInSuccessiveWindowsHoldingNoThread() throws Exception {
		// both gateways warmed up (another key): a first request's own latency would blur the windows' bursts
		assertThat(first.get("/queue/warm", "warm-1").statusCode()).isEqualTo(200);
		assertThat(second.get("/queue/warm", "warm-2").statusCode()).isEqualTo(200);
		List<CompletableFuture<Long>> answered = new ArrayList<>();
		List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
		for (int i = 0; i < REQUESTS; i++) {
			CompletableFuture<HttpResponse<String>> response = ((i % 2 == 0) ? first : second).getAsync("/queue/x",
					"tenant-w");
			sent.add(response);
			answered.add(response.thenApply((done) -> System.currentTimeMillis()));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> waiting(first) + waiting(second) > 0);
		assertThat(Waiters.threadsWaiting()).as("threads held by waiting requests").isZero();
		List<Long> times = new ArrayList<>();
		for (int i = 0; i < REQUESTS; i++) {
			HttpResponse<String> response = sent.get(i).get(30, TimeUnit.SECONDS);
			assertThat(response.statusCode()).isEqualTo(200);
			times.add(answered.get(i).get());
		}
		assertThat(sent).filteredOn((response) -> response.join().headers().firstValue("Server-Timing").isPresent())
			.hasSize(REQUESTS - LIMIT);
		List<Integer> perWindow = Waiters.perWindow(times);
		System.out.println("[waits] gateway: " + REQUESTS + " requests on two gateways, " + LIMIT
				+ " per second, permits per window " + perWindow);
		assertThat(perWindow).as("requests per window").allSatisfy((count) -> assertThat(count).isLessThanOrEqualTo(LIMIT));
		assertThat(perWindow).as("windows used").hasSizeLessThanOrEqualTo(REQUESTS / LIMIT + 1);
	}

	@Test
	void aPermitBeyondMaxWaitIsRefusedAtOnce() {
		assertThat(first.get("/hourly/x", "tenant-h").statusCode()).isEqualTo(200);
		long started = System.nanoTime();
		HttpResponse<String> refused = second.get("/hourly/x", "tenant-h");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
		assertThat(refused.headers().firstValue("Server-Timing")).isEmpty();
	}

	private static double waiting(TestGateway gateway) {
		Gauge gauge = gateway.context().getBean(MeterRegistry.class).find("ratelimit.waiting").tag("rule", "queue").gauge();
		return (gauge != null) ? gauge.value() : 0;
	}


}

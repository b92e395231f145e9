package dev.ratelimit.gateway;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code ratelimit.concurrency} on a real Spring Cloud Gateway route: at most that many requests per key in flight
 * to the backend, across two gateway instances, refusals with 429 and a short {@code Retry-After}, and every slot
 * given back when the route's exchange completes.
 */
class GatewayConcurrencyTests {

	private static Backend backend;

	private static TestGateway first;

	private static TestGateway second;

	@BeforeAll
	static void start() {
		backend = Backend.start();
		Map<String, Object> properties = TestGateway.properties();
		TestGateway.route(properties, backend, "exports", "ratelimit.concurrency=3", "ratelimit.concurrency-lease=30s");
		TestGateway.route(properties, backend, "reports", "ratelimit.concurrency=1", "ratelimit.limit=2",
				"ratelimit.window=1h");
		first = TestGateway.start(properties);
		// a second instance of the gateway, on the same Redis and key prefix
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
	void neverHasMoreRequestsOfAKeyInFlightThanTheLimitAcrossInstances() throws Exception {
		backend.gate = new CompletableFuture<>();
		List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			sent.add(((i % 2 == 0) ? first : second).getAsync("/exports/held", "tenant-a"));
		}
		// the refused ones answer at once; three wait at the backend
		await().atMost(Duration.ofSeconds(20))
			.until(() -> sent.stream().filter(CompletableFuture::isDone).count() == 9);
		backend.gate.complete(null);
		List<HttpResponse<String>> answered = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> each : sent) {
			answered.add(each.get(20, TimeUnit.SECONDS));
		}
		assertThat(answered).filteredOn((response) -> response.statusCode() == 200).hasSize(3);
		assertThat(answered).filteredOn((response) -> response.statusCode() == 429).hasSize(9)
			.allSatisfy((response) -> assertThat(response.headers().firstValue("Retry-After")).hasValue("1"));
		assertThat(backend.mostInFlight()).isLessThanOrEqualTo(3);
		// another key has slots of its own
		assertThat(first.get("/exports/x", "tenant-b").statusCode()).isEqualTo(200);
		// every slot is given back once its exchange completed
		StringRedisTemplate redis = first.context().getBean(StringRedisTemplate.class);
		String slots = first.keyPrefix() + ":concurrency:exports:resolver:tenant-a";
		await().atMost(Duration.ofSeconds(10)).until(() -> redis.opsForZSet().zCard(slots) == 0);
		for (int i = 0; i < 5; i++) {
			assertThat(second.get("/exports/x", "tenant-a").statusCode()).isEqualTo(200);
		}
	}

	@Test
	void aRequestRefusedForConcurrencyChargesNoneOfTheRoutesRateLimit() throws Exception {
		backend.gate = new CompletableFuture<>();
		CompletableFuture<HttpResponse<String>> held = first.getAsync("/reports/held", "tenant-c");
		await().atMost(Duration.ofSeconds(20)).until(() -> backend.inFlight() == 1);
		assertThat(first.get("/reports/x", "tenant-c").statusCode()).isEqualTo(429);
		assertThat(second.get("/reports/x", "tenant-c").statusCode()).isEqualTo(429);
		backend.gate.complete(null);
		assertThat(held.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		// given back when the held exchange completed, just after its answer
		StringRedisTemplate redis = first.context().getBean(StringRedisTemplate.class);
		String slots = first.keyPrefix() + ":concurrency:reports:resolver:tenant-c";
		await().atMost(Duration.ofSeconds(10)).until(() -> redis.opsForZSet().zCard(slots) == 0);
		HttpResponse<String> next = second.get("/reports/x", "tenant-c");
		assertThat(next.statusCode()).isEqualTo(200);
		// the held request and this one: the refusals charged nothing
		assertThat(next.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValueSatisfying(
				(value) -> assertThat(value).startsWith("\"reports\";r=0;"));
	}

}

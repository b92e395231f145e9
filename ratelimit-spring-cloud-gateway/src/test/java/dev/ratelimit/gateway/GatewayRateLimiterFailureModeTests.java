package dev.ratelimit.gateway;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.ClosedPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real gateway whose Redis refuses every connection (nothing listens at its address), in each failure mode.
 */
class GatewayRateLimiterFailureModeTests {

	private static Backend backend;

	@BeforeAll
	static void startBackend() {
		backend = Backend.start();
	}

	@AfterAll
	static void stopBackend() {
		backend.close();
	}

	@Test
	void letsEveryRequestThroughWithoutHeadersWhenFailingOpen() {
		try (TestGateway gateway = TestGateway.start(properties("fail-open"))) {
			int reached = backend.requests();
			for (int i = 0; i < 4; i++) {
				HttpResponse<String> response = gateway.get("/orders/1", "alice");
				assertThat(response.statusCode()).isEqualTo(200);
				assertThat(response.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
					.isEmpty();
				assertThat(response.headers().firstValue("Retry-After")).isEmpty();
			}
			assertThat(backend.requests() - reached).isEqualTo(4);
		}
	}

	@Test
	void refusesEveryRequestWithTheFiltersStatusWhenFailingClosed() {
		try (TestGateway gateway = TestGateway.start(properties("fail-closed"))) {
			int reached = backend.requests();
			for (int i = 0; i < 4; i++) {
				HttpResponse<String> response = gateway.get("/orders/1", "alice");
				assertThat(response.statusCode()).isEqualTo(429);
				assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
				assertThat(response.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
					.isEmpty();
			}
			assertThat(backend.requests()).isEqualTo(reached);
		}
	}

	@Test
	void enforcesTheLimitsInMemoryInTheLocalMode() {
		try (TestGateway gateway = TestGateway.start(properties("local"))) {
			HttpResponse<String> first = gateway.get("/orders/1", "alice");
			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"orders\";q=2;w=3600");
			assertThat(first.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"orders\";r=1;t=3600");
			assertThat(gateway.get("/orders/1", "alice").statusCode()).isEqualTo(200);
			HttpResponse<String> refused = gateway.get("/orders/1", "alice");
			assertThat(refused.statusCode()).isEqualTo(429);
			// the in-memory window runs on this machine's clock: a slow moment may have taken a second off it
			assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
					(seconds) -> assertThat(Long.parseLong(seconds)).isBetween(3590L, 3600L));
			assertThat(refused.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
				.hasValueSatisfying(
					(value) -> assertThat(value).matches("\"orders\";r=0;t=(359\\d|3600)"));
			// each key has a budget of its own in memory too
			assertThat(gateway.get("/orders/1", "bob").statusCode()).isEqualTo(200);
		}
	}

	private static Map<String, Object> properties(String failureMode) {
		Map<String, Object> properties = TestGateway.properties();
		properties.put("spring.data.redis.url", "redis://127.0.0.1:" + ClosedPort.reserve());
		properties.put("ratelimit.failure-mode", failureMode);
		properties.put("ratelimit.timeout", "200ms");
		return TestGateway.route(properties, backend, "orders", "ratelimit.limit=2", "ratelimit.window=1h");
	}

}

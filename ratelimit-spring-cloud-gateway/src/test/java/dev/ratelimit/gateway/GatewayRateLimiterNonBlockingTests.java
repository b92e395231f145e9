package dev.ratelimit.gateway;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Decisions hold no thread of the gateway while Redis answers: with Redis holding every script back, the
 * requests waiting for their decisions outnumber the server's event-loop threads, and the gateway still
 * serves a route without a rate limit.
 */
class GatewayRateLimiterNonBlockingTests {

	@Test
	void servesOtherRequestsWhileDecisionsWaitForRedis() throws Exception {
		int waiting = 2 * Math.max(4, Runtime.getRuntime().availableProcessors());
		Map<String, Object> properties = TestGateway.properties();
		properties.put("ratelimit.timeout", "60s");
		try (Backend backend = Backend.start();
				TestGateway gateway = TestGateway.start(TestGateway.unlimitedRoute(
						TestGateway.route(properties, backend, "orders", "ratelimit.limit=5", "ratelimit.window=1h"),
						backend, "health"))) {
			// the connection is open and the script loaded before Redis is paused
			assertThat(gateway.get("/orders/1", "warm-up").statusCode()).isEqualTo(200);
			int resolved = TestGateway.Application.resolved.get();
			List<CompletableFuture<HttpResponse<String>>> decisions = new ArrayList<>();
			try (RedisTestServer.Pause pause = RedisTestServer.shared().pauseWrites(Duration.ofSeconds(60))) {
				for (int i = 0; i < waiting; i++) {
					decisions.add(gateway.getAsync("/orders/1", "client-" + i));
				}
				// every request has had its key read, and waits for the limiter's answer
				await("the key of every request read, while Redis holds their decisions back").atMost(Duration.ofSeconds(20))
					.until(() -> TestGateway.Application.resolved.get() - resolved >= waiting);
				assertThat(decisions).noneMatch(CompletableFuture::isDone);
				HttpResponse<String> unlimited = gateway.get("/health/1", null);
				assertThat(unlimited.statusCode()).isEqualTo(200);
				assertThat(decisions).noneMatch(CompletableFuture::isDone);
			}
			for (CompletableFuture<HttpResponse<String>> decision : decisions) {
				HttpResponse<String> response = decision.get();
				assertThat(response.statusCode()).isEqualTo(200);
				assertThat(response.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
					.hasValue("\"orders\";r=4;t=3600");
			}
		}
	}

}

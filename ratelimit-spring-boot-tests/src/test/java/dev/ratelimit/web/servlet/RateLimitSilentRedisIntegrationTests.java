package dev.ratelimit.web.servlet;

import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.SilentServer;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests while Redis accepts connections and never answers, with Spring Data Redis' timeout left at
 * a minute: every decision gives up after {@code ratelimit.timeout}, then the circuit breaker spares
 * the wait entirely.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.data.redis.timeout=60s", "ratelimit.timeout=200ms",
				"ratelimit.circuit-breaker.failure-threshold=3", "ratelimit.circuit-breaker.open-duration=1h",
				"ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m" })
class RateLimitSilentRedisIntegrationTests {

	private static final SilentServer silent = SilentServer.start();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> "redis://127.0.0.1:" + silent.port());
	}

	@AfterAll
	static void stopSilentServer() {
		silent.close();
	}

	@Test
	void boundsEveryDecisionByTheTimeout() throws Exception {
		for (int i = 0; i < 10; i++) {
			long started = System.nanoTime();
			HttpResponse<String> response = get(this.port, "/api/items");
			Duration took = Duration.ofNanos(System.nanoTime() - started);
			assertThat(response.statusCode()).isEqualTo(200);
			// bounded by ratelimit.timeout (200 ms), not by Lettuce's minute: the bound tells one from the other with
			// room for a machine kept busy by other work (it measures no performance)
			assertThat(took).as("request %d", i).isLessThan(Duration.ofSeconds(10));
		}
	}

}

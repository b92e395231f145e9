package dev.ratelimit.web.reactive;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.reactive.RateLimitWebFluxTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * WebFlux requests while Redis refuses connections, with the local failure mode: each instance
 * enforces the limits in its own memory.
 */
@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { RateLimitWebFluxTestApplication.REACTIVE, RateLimitWebFluxTestApplication.LOOPBACK,
				"ratelimit.failure-mode=local", "ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=2",
				"ratelimit.rules.api.window=1m" })
class RateLimitWebFluxLocalFailureModeIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitWebFluxTestApplication.unreachableRedis(registry);
	}

	@Test
	void enforcesTheLimitInMemory() throws Exception {
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		var second = get(this.port, "/api/items");
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(second.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"api\";r=0");
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(200);
	}

}

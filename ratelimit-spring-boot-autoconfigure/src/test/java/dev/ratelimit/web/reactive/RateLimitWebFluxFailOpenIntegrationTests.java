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
 * WebFlux requests while Redis refuses connections, with fail-open (the default): they pass, unlimited.
 */
@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { RateLimitWebFluxTestApplication.REACTIVE, RateLimitWebFluxTestApplication.LOOPBACK,
				"ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m" })
class RateLimitWebFluxFailOpenIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitWebFluxTestApplication.unreachableRedis(registry);
	}

	@Test
	void letsRequestsPassWithoutHeaders() throws Exception {
		for (int i = 0; i < 3; i++) {
			var response = get(this.port, "/api/items");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("items");
			assertThat(response.headers().firstValue("RateLimit")).isEmpty();
		}
	}

}

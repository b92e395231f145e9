package dev.ratelimit.web.servlet;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests while Redis refuses connections, in the local failure mode: each instance enforces the
 * limits on its own.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.failure-mode=local", "ratelimit.rules.api.paths=/api/**",
				"ratelimit.rules.api.limit=2", "ratelimit.rules.api.window=1m" })
class RateLimitLocalFailureModeIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitTestApplication.unreachableRedis(registry);
	}

	@Test
	void enforcesTheLimitInMemory() throws Exception {
		for (int remaining = 1; remaining >= 0; remaining--) {
			HttpResponse<String> allowed = get(this.port, "/api/items");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().firstValue("RateLimit").orElseThrow())
				.matches("\"api\";r=" + remaining + ";t=(59|60)");
		}
		HttpResponse<String> refused = get(this.port, "/api/items");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(200);
	}

}

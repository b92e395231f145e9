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
 * A rule that counts only failed sign-ins (401) on Netty, as on the servlet stack.
 */
@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { RateLimitWebFluxTestApplication.REACTIVE, RateLimitWebFluxTestApplication.LOOPBACK,
				"ratelimit.rules.sign-in.paths=/sign-in", "ratelimit.rules.sign-in.key=param:user",
				"ratelimit.rules.sign-in.limit=2", "ratelimit.rules.sign-in.window=15m",
				"ratelimit.rules.sign-in.count-statuses=4xx" })
class RateLimitWebFluxCountStatusesIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitWebFluxTestApplication.register(registry);
	}

	@Test
	void chargesFailuresOnly() throws Exception {
		for (int i = 0; i < 4; i++) {
			assertThat(get(this.port, "/sign-in?user=ann&password=secret").statusCode()).isEqualTo(200);
		}
		assertThat(get(this.port, "/sign-in?user=ann&password=guess").statusCode()).isEqualTo(401);
		assertThat(get(this.port, "/sign-in?user=ann&password=guess").statusCode()).isEqualTo(401);
		assertThat(get(this.port, "/sign-in?user=ann&password=secret").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/sign-in?user=bob&password=secret").statusCode()).isEqualTo(200);
	}

}

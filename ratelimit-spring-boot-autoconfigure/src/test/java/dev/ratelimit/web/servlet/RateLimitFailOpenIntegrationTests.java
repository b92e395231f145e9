package dev.ratelimit.web.servlet;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests while Redis refuses connections, with the default fail-open mode.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=1",
				"ratelimit.rules.api.window=1m" })
@ExtendWith(OutputCaptureExtension.class)
class RateLimitFailOpenIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitTestApplication.unreachableRedis(registry);
	}

	@Test
	void letsRequestsPassAndWarnsOnce(CapturedOutput output) throws Exception {
		for (int i = 0; i < 10; i++) {
			HttpResponse<String> response = get(this.port, "/api/items");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("RateLimit")).isEmpty();
		}
		// one WARN when Redis becomes unavailable, none per request
		assertThat(output.getOut().lines().filter((line) -> line.contains(" WARN ") && line.contains("dev.ratelimit")))
			.hasSize(1);
		assertThat(output.getOut()).contains("Redis is unavailable after 5 failed calls in a row");
	}

}

package dev.ratelimit.web.reactive;

import java.net.http.HttpResponse;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.reactive.RateLimitWebFluxTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * WebFlux requests while Redis refuses connections, with fail-closed: 503 with a problem body.
 */
@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { RateLimitWebFluxTestApplication.REACTIVE, RateLimitWebFluxTestApplication.LOOPBACK,
				"ratelimit.failure-mode=fail-closed", "ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=1",
				"ratelimit.rules.api.window=1m", "ratelimit.rules.shadowed.paths=/shadowed",
				"ratelimit.rules.shadowed.limit=1", "ratelimit.rules.shadowed.window=1m",
				"ratelimit.rules.shadowed.shadow=true" })
class RateLimitWebFluxFailClosedIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitWebFluxTestApplication.unreachableRedis(registry);
	}

	@Test
	void refusesRequestsWithServiceUnavailable() throws Exception {
		HttpResponse<String> response = get(this.port, "/api/items");
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat((Integer) JsonPath.read(response.body(), "$.status")).isEqualTo(503);
		assertThat((String) JsonPath.read(response.body(), "$.detail")).contains("fail-closed");
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/shadowed").statusCode()).isEqualTo(200);
	}

}

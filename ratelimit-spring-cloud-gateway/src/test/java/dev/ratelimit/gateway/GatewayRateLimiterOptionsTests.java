package dev.ratelimit.gateway;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real gateway with the options every web stack honours: {@code ratelimit.headers.*} and
 * {@code ratelimit.shadow}.
 */
class GatewayRateLimiterOptionsTests {

	private static Backend backend;

	private static TestGateway gateway;

	@BeforeAll
	static void start() {
		backend = Backend.start();
		Map<String, Object> properties = TestGateway.properties();
		properties.put("ratelimit.headers.enabled", "false");
		properties.put("ratelimit.headers.legacy", "true");
		properties.put("ratelimit.shadow", "true");
		gateway = TestGateway.start(
				TestGateway.route(properties, backend, "orders", "ratelimit.limit=2", "ratelimit.window=1h"));
	}

	@AfterAll
	static void stop() {
		gateway.close();
		backend.close();
	}

	@Test
	void sendsTheHeadersThePropertiesAskFor() {
		HttpResponse<String> response = gateway.get("/orders/1", "alice");
		assertThat(response.headers().firstValue("RateLimit-Policy")).isEmpty();
		assertThat(response.headers().firstValue("RateLimit")).isEmpty();
		assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
		assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
		assertThat(response.headers().firstValue("X-RateLimit-Reset")).hasValue("3600");
	}

	@Test
	void refusesNothingInShadowMode() {
		for (int i = 0; i < 2; i++) {
			assertThat(gateway.get("/orders/1", "bob").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> overTheLimit = gateway.get("/orders/1", "bob");
		assertThat(overTheLimit.statusCode()).isEqualTo(200);
		assertThat(overTheLimit.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
		assertThat(overTheLimit.headers().firstValue("Retry-After")).isEmpty();
	}

}

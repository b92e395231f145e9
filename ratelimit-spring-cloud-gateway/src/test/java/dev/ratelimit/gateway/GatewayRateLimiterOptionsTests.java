package dev.ratelimit.gateway;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real gateway with the options every web stack honours, {@code ratelimit.headers.*} and
 * {@code ratelimit.shadow}, and the decision metrics of every rule.
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
				TestGateway.route(properties, backend, "orders", "ratelimit.limit=2", "ratelimit.window=1h"),
				Metrics.class);
	}

	@AfterAll
	static void stop() {
		gateway.close();
		backend.close();
	}

	@Test
	void sendsTheHeadersThePropertiesAskFor() {
		HttpResponse<String> response = gateway.get("/orders/1", "alice");
		assertThat(response.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.isEmpty();
		assertThat(response.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
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

	@Test
	void countsTheDecisionsOfARouteAsThoseOfAnyRule() {
		SimpleMeterRegistry registry = gateway.context().getBean(SimpleMeterRegistry.class);
		double allowed = count(registry, "allowed");
		double shadowRejected = count(registry, "shadow-rejected");
		for (int i = 0; i < 3; i++) {
			gateway.get("/orders/1", "carol");
		}
		assertThat(count(registry, "allowed") - allowed).isEqualTo(2);
		assertThat(count(registry, "shadow-rejected") - shadowRejected).isEqualTo(1);
	}

	private static double count(SimpleMeterRegistry registry, String outcome) {
		Counter counter = registry.find("ratelimit.decisions").tag("rule", "orders").tag("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

	@Configuration(proxyBeanMethods = false)
	static class Metrics {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}

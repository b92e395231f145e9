package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule applies to every request for the paths it names, as a handler is looked up for them, whatever
 * the path looks like on the wire and whatever answers it: a controller, no handler at all (404), an
 * Actuator endpoint, a static resource, a functional endpoint.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, RateLimitPathMatchingIntegrationTests.Functional.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=paths", "ratelimit.rules.items.paths=/api/items",
				"ratelimit.rules.items.methods=GET", "ratelimit.rules.items.limit=3", "ratelimit.rules.items.window=1m",
				"ratelimit.rules.missing.paths=/nowhere/**", "ratelimit.rules.missing.limit=1",
				"ratelimit.rules.missing.window=1m", "ratelimit.rules.actuator.paths=/actuator/**",
				"ratelimit.rules.actuator.limit=1", "ratelimit.rules.actuator.window=1m",
				"ratelimit.rules.static.paths=/hello.txt", "ratelimit.rules.static.limit=1",
				"ratelimit.rules.static.window=1m", "ratelimit.rules.functional.paths=/fn/**",
				"ratelimit.rules.functional.limit=1", "ratelimit.rules.functional.window=1m" })
class RateLimitPathMatchingIntegrationTests extends RedisBackedWebTests {

	@Test
	void chargesOneBudgetWhateverThePathLooksLikeOnTheWire() throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (String path : List.of("/api/items", "/api/%69tems", "/api;jsessionid=abc/items", "//api//items",
				"/api/./items")) {
			HttpResponse<String> response = get(this.port, path);
			statuses.add(response.statusCode());
			assertThat(response.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.as(path).hasValue("\"items\";q=3;w=60");
		}
		assertThat(statuses).containsExactly(200, 200, 200, 429, 429);
	}

	@Test
	void countsRequestsThatNoHandlerAnswers() throws Exception {
		assertThat(get(this.port, "/nowhere/x").statusCode()).isEqualTo(404);
		assertThat(get(this.port, "/nowhere/y").statusCode()).isEqualTo(429);
	}

	@Test
	void limitsActuatorEndpoints() throws Exception {
		assertThat(get(this.port, "/actuator/health").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/actuator/health").statusCode()).isEqualTo(429);
	}

	@Test
	void limitsStaticResources() throws Exception {
		HttpResponse<String> served = get(this.port, "/hello.txt");
		assertThat(served.statusCode()).isEqualTo(200);
		assertThat(served.body()).isEqualTo("hello\n");
		assertThat(get(this.port, "/hello.txt").statusCode()).isEqualTo(429);
	}

	@Test
	void limitsFunctionalEndpoints() throws Exception {
		HttpResponse<String> served = get(this.port, "/fn/hello");
		assertThat(served.statusCode()).isEqualTo(200);
		assertThat(served.body()).isEqualTo("fn");
		assertThat(get(this.port, "/fn/hello").statusCode()).isEqualTo(429);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Functional {

		@Bean
		RouterFunction<ServerResponse> functionalHello() {
			return RouterFunctions.route().GET("/fn/hello", (request) -> ServerResponse.ok().body("fn")).build();
		}

	}

}

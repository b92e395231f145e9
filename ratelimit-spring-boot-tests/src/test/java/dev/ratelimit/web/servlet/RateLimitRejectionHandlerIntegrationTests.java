package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import dev.ratelimit.rules.flow.RateLimitRejectionHandler;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's own {@link RateLimitRejectionHandler} answers refused requests, written through the
 * message converters, with the rate-limit headers and {@code Retry-After} still set.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class,
		RateLimitRejectionHandlerIntegrationTests.PlainTextRejections.class }, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=rejection-handler", "ratelimit.rules.api.paths=/api/**",
				"ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m" })
class RateLimitRejectionHandlerIntegrationTests extends RedisBackedWebTests {

	@Test
	void answersWithTheApplicationsOwnBody() throws Exception {
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		HttpResponse<String> refused = get(this.port, "/api/items");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain");
		assertThat(refused.headers().firstValue("X-Refused-By")).hasValue("api");
		assertThat(refused.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"api\";q=1;w=60");
		String retryAfter = refused.headers().firstValue("Retry-After").orElseThrow();
		assertThat(refused.body()).isEqualTo("Slow down: try again in " + retryAfter + " s");
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class PlainTextRejections {

		@Bean
		RateLimitRejectionHandler plainTextRejections() {
			return (rejection) -> ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
				.contentType(MediaType.TEXT_PLAIN)
				.header("X-Refused-By", rejection.violated().get(0).policy())
				.body("Slow down: try again in " + rejection.retryAfterSeconds() + " s");
		}

	}

}

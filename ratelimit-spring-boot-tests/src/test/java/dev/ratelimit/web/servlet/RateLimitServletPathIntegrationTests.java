package dev.ratelimit.web.servlet;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules name paths as handlers see them: without the context path and the DispatcherServlet's path, with
 * the ant-path matching strategy as with path patterns.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=servlet-path", "server.servlet.context-path=/ctx",
				"spring.mvc.servlet.path=/app", "spring.mvc.pathmatch.matching-strategy=ant_path_matcher",
				"ratelimit.rules.items.paths=/api/items", "ratelimit.rules.items.limit=2",
				"ratelimit.rules.items.window=1m" })
class RateLimitServletPathIntegrationTests extends RedisBackedWebTests {

	@Test
	void matchesThePathWithinTheServletMapping() throws Exception {
		assertThat(get(this.port, "/ctx/app/api/items").body()).isEqualTo("items");
		assertThat(get(this.port, "/ctx/app/api/%69tems").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/ctx/app/api/items").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/ctx/app//api/items").statusCode()).isEqualTo(429);
	}

}

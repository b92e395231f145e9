package dev.ratelimit.web.servlet;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Paths a rule excludes and condition beans that decide whether it applies, on Tomcat and a real Redis.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, RateLimitScopeIntegrationTests.Conditions.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.exclude-paths=/api/health",
				"ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m", "ratelimit.rules.outside.paths=/open",
				"ratelimit.rules.outside.limit=1", "ratelimit.rules.outside.window=1m",
				"ratelimit.rules.outside.condition=bean:externalOnly", "ratelimit.rules.strict.paths=/keyed",
				"ratelimit.rules.strict.limit=1", "ratelimit.rules.strict.window=1m",
				"ratelimit.rules.strict.condition=bean:brokenCondition" })
class RateLimitScopeIntegrationTests extends RedisBackedWebTests {

	@Test
	void neverChargesAnExcludedPath() throws Exception {
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> health = get(this.port, "/api/health");
			assertThat(health.statusCode()).isEqualTo(200);
			assertThat(health.headers().firstValue("RateLimit")).isEmpty();
		}
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
	}

	@Test
	void skipsTheRuleWhereItsConditionSaysSo() throws Exception {
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> internal = get(this.port, "/open", "X-Internal", "yes");
			assertThat(internal.statusCode()).isEqualTo(200);
			assertThat(internal.headers().firstValue("RateLimit")).isEmpty();
		}
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(429);
	}

	@Test
	void appliesTheRuleWhenItsConditionThrows() throws Exception {
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(429);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Conditions {

		@Bean
		RateLimitCondition externalOnly() {
			return (request) -> !"yes".equals(request.getHeader("X-Internal"));
		}

		@Bean
		RateLimitCondition brokenCondition() {
			return (request) -> {
				throw new IllegalStateException("a condition with a bug");
			};
		}

	}

}

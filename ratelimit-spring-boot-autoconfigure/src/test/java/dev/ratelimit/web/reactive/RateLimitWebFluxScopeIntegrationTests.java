package dev.ratelimit.web.reactive;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.reactive.RateLimitWebFluxTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Excluded paths and reactive condition beans on Netty, as on the servlet stack.
 */
@SpringBootTest(
		classes = { RateLimitWebFluxTestApplication.class, RateLimitWebFluxScopeIntegrationTests.Conditions.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { RateLimitWebFluxTestApplication.REACTIVE, RateLimitWebFluxTestApplication.LOOPBACK,
				"ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.exclude-paths=/api/health",
				"ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m", "ratelimit.rules.outside.paths=/open",
				"ratelimit.rules.outside.limit=1", "ratelimit.rules.outside.window=1m",
				"ratelimit.rules.outside.condition=bean:externalOnly", "ratelimit.rules.strict.paths=/param",
				"ratelimit.rules.strict.limit=1", "ratelimit.rules.strict.window=1m",
				"ratelimit.rules.strict.condition=bean:brokenCondition" })
class RateLimitWebFluxScopeIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitWebFluxTestApplication.register(registry);
	}

	@Test
	void excludesPathsAndAsksConditions() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get(this.port, "/api/health").statusCode()).isEqualTo(200);
			assertThat(get(this.port, "/open", "X-Internal", "yes").statusCode()).isEqualTo(200);
		}
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(429);
		// a condition that fails counts as applying
		assertThat(get(this.port, "/param").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/param").statusCode()).isEqualTo(429);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Conditions {

		@Bean
		ReactiveRateLimitCondition externalOnly() {
			return (exchange) -> Mono.just(!"yes".equals(exchange.getRequest().getHeaders().getFirst("X-Internal")));
		}

		@Bean
		ReactiveRateLimitCondition brokenCondition() {
			return (exchange) -> Mono.error(new IllegalStateException("a condition with a bug"));
		}

	}

}

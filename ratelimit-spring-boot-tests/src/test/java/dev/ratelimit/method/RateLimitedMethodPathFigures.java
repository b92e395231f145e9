package dev.ratelimit.method;

import java.util.Map;
import java.util.UUID;

import dev.ratelimit.RateLimited;
import dev.ratelimit.testsupport.CallPathFigure;
import dev.ratelimit.testsupport.RedisTestServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A figure of docs/architecture.md, not a test (surefire runs it only when named:
 * {@code -Dtest=RateLimitedMethodPathFigures}): the path of one allowed call of a {@code @RateLimited} method of an
 * ordinary bean, in an application that serves no web requests (one rule, keyed by an argument; warmed up by a first
 * call), as {@link CallPathFigure} prints it.
 */
class RateLimitedMethodPathFigures {

	@Test
	void pathOfOneAllowedCall() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "ratelimit.key-prefix",
					"figures-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout", "5s"))
			.run()) {
			Greeter greeter = context.getBean(Greeter.class);
			CallPathFigure figure = CallPathFigure.measure("@RateLimited bean method",
					() -> assertThat(greeter.greet("ann")).isEqualTo("hello ann"));
			assertThat(figure.files()).contains("dev.ratelimit.method.MethodRateLimitInterceptor",
					"dev.ratelimit.rules.internal.EngineFlow", "dev.ratelimit.redis.RedisRateLimiter");
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Greeter.class)
	static class Application {

	}

	static class Greeter {

		@RateLimited(name = "figures", limit = 1000000, window = "1h", key = "#user")
		public String greet(String user) {
			return "hello " + user;
		}

	}

}

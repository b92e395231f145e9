package dev.ratelimit.method;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @RateLimited} and Spring Framework 7's {@code @Retryable} on one bean method, against a real Redis: the limit
 * applies inside the retry, so that every attempt is decided and charged, whichever of the two post-processors runs
 * first ({@code @EnableResilientMethods(order)} puts Spring's before or after ours).
 */
class RateLimitedRetryableTests {

	@ParameterizedTest
	@ValueSource(classes = { DefaultOrder.class, RetryFirst.class, RetryLast.class })
	void everyAttemptIsChargedAndARefusalIsWhatTheRetrySees(Class<?> resilience) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class, resilience)
			.web(WebApplicationType.NONE)
			.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "ratelimit.key-prefix",
					"method-retry-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout", "5s"))
			.run()) {
			Flaky flaky = context.getBean(Flaky.class);
			// fails twice, then succeeds: three attempts, three permits of the limit of 3
			assertThat(flaky.fetch("alice")).isEqualTo("fetched for alice");
			assertThat(flaky.attempts()).isEqualTo(3);
			// no permit left: every attempt is refused, and the method never runs
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> flaky.fetch("alice"))
				.satisfies((refused) -> assertThat(refused.getRule()).isEqualTo("flaky-fetch"));
			assertThat(flaky.attempts()).isEqualTo(3);
			// another key has its own budget
			assertThat(flaky.fetch("bob")).isEqualTo("fetched for bob");
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Flaky.class)
	static class Application {

	}

	@EnableResilientMethods
	static class DefaultOrder {

	}

	@EnableResilientMethods(order = Ordered.HIGHEST_PRECEDENCE)
	static class RetryFirst {

	}

	@EnableResilientMethods(order = Ordered.LOWEST_PRECEDENCE)
	static class RetryLast {

	}

	static class Flaky {

		private final AtomicInteger attempts = new AtomicInteger();

		/** Fails on the first two attempts of all, then succeeds. */
		@Retryable(maxRetries = 2, delay = 10)
		@RateLimited(name = "flaky-fetch", limit = 3, window = "1m", key = "#user")
		public String fetch(String user) {
			if (this.attempts.incrementAndGet() <= 2) {
				throw new IllegalStateException("the partner did not answer");
			}
			return "fetched for " + user;
		}

		int attempts() {
			return this.attempts.get();
		}

	}

}

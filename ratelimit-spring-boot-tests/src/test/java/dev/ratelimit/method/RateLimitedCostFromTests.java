package dev.ratelimit.method;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.rules.InvalidRateLimitRuleException;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @RateLimited(costFrom = "#result...")} on bean methods: the cost is reserved before the call and settled with
 * the actual cost its result tells (a value, a future's, a {@code Mono}'s), past the limit if need be; a call that
 * fails keeps the reservation.
 */
class RateLimitedCostFromTests {

	private static final List<RateLimit> DAILY = List.of(RateLimit.of(1000, Duration.ofDays(1)));

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "ratelimit.key-prefix",
					"method-costs-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout", "5s"))
			.run();
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	private static long remaining(String rule, String user) {
		RateLimiter limiter = context.getBean("fixedWindowRateLimiter", RateLimiter.class);
		return limiter.inspect(rule + ":expression:" + user, DAILY).get(0).remaining();
	}

	@Test
	void chargesTheTokensTheResultTells() {
		Llm llm = context.getBean(Llm.class);
		assertThat(llm.complete("ann", 30).tokens()).isEqualTo(30);
		// settled once the call returned, without holding the caller
		await().atMost(Duration.ofSeconds(10)).until(() -> remaining("complete", "ann") == 970);
		llm.complete("ann", 2000);
		// past the budget: charged whole, the next call refused
		await().atMost(Duration.ofSeconds(10)).until(() -> remaining("complete", "ann") == 0);
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> llm.complete("ann", 1));
		// a call that fails keeps its reservation
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> llm.complete("bob", -1));
		assertThat(remaining("complete", "bob")).isEqualTo(900);
	}

	@Test
	void settlesFuturesAndMonosWhenTheyComplete() {
		Llm llm = context.getBean(Llm.class);
		CompletableFuture<Completion> later = new CompletableFuture<>();
		CompletableFuture<Completion> pending = llm.later("cid", later);
		assertThat(remaining("later", "cid")).isEqualTo(900);
		later.complete(new Completion(10));
		assertThat(pending.join().tokens()).isEqualTo(10);
		await().atMost(Duration.ofSeconds(10)).until(() -> remaining("later", "cid") == 990);
		assertThat(llm.mono("dee", 250).block().tokens()).isEqualTo(250);
		await().atMost(Duration.ofSeconds(10)).until(() -> remaining("mono", "dee") == 750);
	}

	@Test
	void refusesCostFromOnAFlux() {
		Throwable failure = org.assertj.core.api.Assertions
			.catchThrowable(() -> new SpringApplicationBuilder(Application.class, FluxCosts.class).web(WebApplicationType.NONE)
				.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url()))
				.run()
				.close());
		assertThat(org.springframework.core.NestedExceptionUtils.getMostSpecificCause(failure))
			.isInstanceOf(InvalidRateLimitRuleException.class)
			.hasMessageContaining("costFrom")
			.hasMessageContaining("a Flux has no one result");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Llm.class)
	static class Application {

	}

	record Completion(int tokens) {
	}

	static class Llm {

		@RateLimited(name = "complete", limit = 1000, window = "1d", cost = "100", costFrom = "#result.tokens",
				key = "#user")
		public Completion complete(String user, int tokens) {
			if (tokens < 0) {
				throw new IllegalStateException("the model failed");
			}
			return new Completion(tokens);
		}

		@RateLimited(name = "later", limit = 1000, window = "1d", cost = "100", costFrom = "#result.tokens",
				key = "#user")
		public CompletableFuture<Completion> later(String user, CompletableFuture<Completion> answer) {
			return answer;
		}

		@RateLimited(name = "mono", limit = 1000, window = "1d", cost = "100", costFrom = "#result.tokens()",
				key = "#user")
		public Mono<Completion> mono(String user, int tokens) {
			return Mono.fromSupplier(() -> new Completion(tokens));
		}

	}

	@Import(FluxCosts.Streams.class)
	static class FluxCosts {

		static class Streams {

			@RateLimited(name = "stream", limit = 1000, window = "1d", cost = "100", costFrom = "#result.tokens")
			public reactor.core.publisher.Flux<Completion> stream() {
				return reactor.core.publisher.Flux.empty();
			}

		}

	}

}

package dev.ratelimit.method;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.resilience.retry.MethodRetryEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Spring Framework 7's own {@code @Retryable} on a {@code @RateLimited} method, against a real Redis: an attempt the
 * limit refused is retried at the refusal's retry time and not before (one refusal, then the attempt that the next
 * window allows: no attempt wasted in between), the thread waiting for a plain method and a timer for a {@code Mono}
 * or a {@code Flux}; a retry time longer than {@code ratelimit.retry.max-wait} is not waited for, and with
 * {@link RateLimitRetryPredicate} not retried at all. The retry's own delay (10 ms) is far shorter than the retry times (up to the 2 s window).
 */
class RateLimitedRetryAfterTests {

	@Test
	void aRefusedCallIsRetriedAtItsRetryTimeAndNotBefore() {
		try (ConfigurableApplicationContext context = run(Map.of())) {
			Partner partner = context.getBean(Partner.class);
			Refusals refusals = context.getBean(Refusals.class);
			// the window's one permit
			String first = partner.fetch("alice");
			long called = System.nanoTime();
			String second = partner.fetch("alice");
			assertThat(first).isEqualTo(second).isEqualTo("fetched for alice");
			// refused once, then the one attempt at the retry time, which the next window allows
			assertThat(refusals.retryAfters()).singleElement()
				.satisfies((retryAfter) -> assertThat(retryAfter).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2)));
			assertThat(partner.attempts()).hasSize(2);
			assertThat(partner.attempts().get(1)).isGreaterThanOrEqualTo(called + refusals.retryAfters().get(0).toNanos());
			// as docs/rules.md shows it
			String transcript = "fetch(\"alice\") -> " + first + "\n" + "fetch(\"alice\"), attempt 1 -> "
					+ refusals.all().get(0) + "\n" + "fetch(\"alice\"), attempt 2 ("
					+ Duration.ofNanos(partner.attempts().get(1) - called).toMillis() + " ms after the call) -> " + second
					+ "\n";
			System.out.print(transcript);
			DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "rules.md"),
					"RateLimitedRetryAfterTests", null), transcript);
		}
	}

	@Test
	void aRefusedMonoIsResubscribedAtItsRetryTimeWithoutHoldingAThread() {
		try (ConfigurableApplicationContext context = run(Map.of())) {
			Partner partner = context.getBean(Partner.class);
			Refusals refusals = context.getBean(Refusals.class);
			assertThat(partner.fetchLater("bob").block(Duration.ofSeconds(5))).isEqualTo("fetched later for bob");
			long called = System.nanoTime();
			AtomicReference<String> answer = new AtomicReference<>();
			// the subscribing thread is not held: it gets on while the retry waits for the retry time
			partner.fetchLater("bob").subscribe(answer::set);
			assertThat(answer).hasNullValue();
			// nor is any other thread while the retry waits for the retry time: the resubscription is on a timer
			await().failFast("a thread waits in the limits' code", RateLimitedRetryAfterTests::aThreadWaitsInTheLimits)
				.atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(answer).hasValue("fetched later for bob"));
			assertThat(refusals.retryAfters()).hasSize(1);
			assertThat(partner.attempts()).hasSize(2);
			assertThat(partner.attempts().get(1)).isGreaterThanOrEqualTo(called + refusals.retryAfters().get(0).toNanos());
		}
	}

	@Test
	void aRetryTimeLongerThanTheBoundIsNotRetried() {
		try (ConfigurableApplicationContext context = run(Map.of("ratelimit.retry.max-wait", "200ms"))) {
			Partner partner = context.getBean(Partner.class);
			Refusals refusals = context.getBean(Refusals.class);
			assertThat(partner.fetch("carol")).isEqualTo("fetched for carol");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> partner.fetch("carol"))
				.satisfies((refused) -> assertThat(refused.getRetryAfter()).isGreaterThan(Duration.ofMillis(200)));
			// one attempt, refused, and no retry
			assertThat(refusals.retryAfters()).hasSize(1);
			assertThat(partner.attempts()).hasSize(1);
		}
	}

	@Test
	void aRefusedFluxIsResubscribedAtItsRetryTime() {
		try (ConfigurableApplicationContext context = run(Map.of())) {
			Partner partner = context.getBean(Partner.class);
			Refusals refusals = context.getBean(Refusals.class);
			assertThat(partner.fetchAll("dave").collectList().block(Duration.ofSeconds(5))).containsExactly("dave", "dave");
			long called = System.nanoTime();
			assertThat(partner.fetchAll("dave").collectList().block(Duration.ofSeconds(5))).containsExactly("dave", "dave");
			assertThat(refusals.retryAfters()).hasSize(1);
			assertThat(partner.attempts()).hasSize(2);
			assertThat(partner.attempts().get(1)).isGreaterThanOrEqualTo(called + refusals.retryAfters().get(0).toNanos());
		}
	}

	@Test
	void withoutThePredicateARetryTimeLongerThanTheBoundIsNotWaitedFor() {
		try (ConfigurableApplicationContext context = run(Map.of("ratelimit.retry.max-wait", "200ms"))) {
			Partner partner = context.getBean(Partner.class);
			Refusals refusals = context.getBean(Refusals.class);
			assertThat(partner.fetchAnyway("erin")).isEqualTo("fetched anyway for erin");
			// every attempt decided after Spring's 10 ms alone, all within the window, all refused
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> partner.fetchAnyway("erin"));
			assertThat(refusals.retryAfters()).hasSize(3)
				.allSatisfy((retryAfter) -> assertThat(retryAfter).isGreaterThan(Duration.ofMillis(200)));
			assertThat(partner.attempts()).hasSize(1);
		}
	}

	@Test
	void aNegativeBoundStopsTheApplication() {
		assertThatException().isThrownBy(() -> run(Map.of("ratelimit.retry.max-wait", "-1s")))
			.havingRootCause()
			.isInstanceOf(InvalidConfigurationPropertyValueException.class)
			.withMessageContaining("ratelimit.retry.max-wait")
			.withMessageContaining("zero or more");
	}

	/** Whether a thread waits (or sleeps) in the code that applies the limits to methods. */
	private static boolean aThreadWaitsInTheLimits() {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.anyMatch((thread) -> (thread.getKey().getState() == Thread.State.WAITING
					|| thread.getKey().getState() == Thread.State.TIMED_WAITING) && inTheLimits(thread.getValue()));
	}

	/** Whether a stack runs the code that applies the limits to methods (the tests' own code aside). */
	private static boolean inTheLimits(StackTraceElement[] stack) {
		return List.of(stack)
			.stream()
			.map(StackTraceElement::getClassName)
			.anyMatch((name) -> name.startsWith(MethodRateLimitInterceptor.class.getPackageName() + ".")
					&& !name.startsWith(RateLimitedRetryAfterTests.class.getName()));
	}

	private static ConfigurableApplicationContext run(Map<String, Object> properties) {
		Map<String, Object> all = new HashMap<>(properties);
		all.putAll(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "ratelimit.key-prefix",
				"method-retry-after-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout", "5s"));
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE).properties(all).run();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableResilientMethods
	@Import({ Partner.class, Refusals.class })
	static class Application {

	}

	static class Partner {

		private final List<Long> attempts = new CopyOnWriteArrayList<>();

		@Retryable(maxRetries = 3, delay = 10, predicate = RateLimitRetryPredicate.class)
		@RateLimited(name = "partner-fetch", limit = 1, window = "2s", key = "#user")
		public String fetch(String user) {
			this.attempts.add(System.nanoTime());
			return "fetched for " + user;
		}

		@Retryable(maxRetries = 3, delay = 10, predicate = RateLimitRetryPredicate.class)
		@RateLimited(name = "partner-fetch-later", limit = 1, window = "2s", key = "#user")
		public Mono<String> fetchLater(String user) {
			return Mono.fromSupplier(() -> {
				this.attempts.add(System.nanoTime());
				return "fetched later for " + user;
			});
		}

		@Retryable(maxRetries = 3, delay = 10, predicate = RateLimitRetryPredicate.class)
		@RateLimited(name = "partner-fetch-all", limit = 1, window = "2s", key = "#user")
		public Flux<String> fetchAll(String user) {
			return Flux.defer(() -> {
				this.attempts.add(System.nanoTime());
				return Flux.just(user, user);
			});
		}

		@Retryable(maxRetries = 2, delay = 10)
		@RateLimited(name = "partner-fetch-anyway", limit = 1, window = "2s", key = "#user")
		public String fetchAnyway(String user) {
			this.attempts.add(System.nanoTime());
			return "fetched anyway for " + user;
		}

		/** When each attempt the limit allowed ran, in {@link System#nanoTime()}. */
		List<Long> attempts() {
			return this.attempts;
		}

	}

	/** The refusals Spring's retry saw, from its events. */
	static class Refusals {

		private final List<RateLimitExceededException> all = new CopyOnWriteArrayList<>();

		@EventListener
		void onRetry(MethodRetryEvent event) {
			if (!event.isRetryAborted() && event.getFailure() instanceof RateLimitExceededException refused) {
				this.all.add(refused);
			}
		}

		List<RateLimitExceededException> all() {
			return this.all;
		}

		List<Duration> retryAfters() {
			return this.all.stream().map(RateLimitExceededException::getRetryAfter).toList();
		}

	}

}

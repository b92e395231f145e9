package dev.ratelimit.method;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;
import dev.ratelimit.testsupport.RedisTestServer;

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
 * {@code @RateLimited(concurrency = N)} on bean methods: at most N calls per key in flight, a slot held until the
 * call completes (its return, its exception, its future, its publisher), then given back.
 */
class RateLimitedConcurrencyTests {

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "ratelimit.key-prefix",
					"method-slots-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout", "5s"))
			.run();
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@Test
	void neverRunsMoreCallsOfAKeyAtOnceThanTheLimit() throws Exception {
		Exports exports = context.getBean(Exports.class);
		int threads = 20;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		AtomicInteger refused = new AtomicInteger();
		AtomicInteger done = new AtomicInteger();
		try {
			CountDownLatch start = new CountDownLatch(1);
			CompletableFuture<Void> gate = new CompletableFuture<>();
			Future<?>[] calls = new Future<?>[threads];
			for (int i = 0; i < threads; i++) {
				calls[i] = pool.submit(() -> {
					start.await();
					try {
						exports.export("acme", gate);
						done.incrementAndGet();
					}
					catch (RateLimitExceededException ex) {
						assertThat(ex.getRefusals()).singleElement()
							.satisfies((refusal) -> assertThat(refusal.limit().limit()).isEqualTo(2));
						refused.incrementAndGet();
					}
					return null;
				});
			}
			start.countDown();
			await().atMost(Duration.ofSeconds(20)).until(() -> refused.get() == threads - 2);
			assertThat(exports.running()).isEqualTo(2);
			gate.complete(null);
			for (Future<?> call : calls) {
				call.get(20, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(done.get()).isEqualTo(2);
		assertThat(exports.most()).isEqualTo(2);
		// both slots back
		exports.export("acme", CompletableFuture.completedFuture(null));
		exports.export("acme", CompletableFuture.completedFuture(null));
	}

	@Test
	void aFreeCallStillTakesItsSlotBesideRateLimitsChargedWithTheCost() throws Exception {
		Exports exports = context.getBean(Exports.class);
		int threads = 6;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		AtomicInteger refused = new AtomicInteger();
		try {
			CountDownLatch start = new CountDownLatch(1);
			CompletableFuture<Void> gate = new CompletableFuture<>();
			Future<?>[] calls = new Future<?>[threads];
			for (int i = 0; i < threads; i++) {
				calls[i] = pool.submit(() -> {
					start.await();
					try {
						// a cost of 0: no permits, and a slot all the same
						exports.weighted("initech", 0, gate);
					}
					catch (RateLimitExceededException ex) {
						refused.incrementAndGet();
					}
					return null;
				});
			}
			start.countDown();
			await().atMost(Duration.ofSeconds(20)).until(() -> refused.get() == threads - 2);
			assertThat(exports.running()).isEqualTo(2);
			gate.complete(null);
			for (Future<?> call : calls) {
				call.get(20, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(refused.get()).isEqualTo(threads - 2);
		// costs of 1 and more are charged under the rate limit (10 an hour), each call holding a slot meanwhile
		CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
		assertThat(exports.weighted("initech", 4, done)).isEqualTo("weighed 4");
		assertThat(exports.weighted("initech", 6, done)).isEqualTo("weighed 6");
		RateLimitExceededException over = org.assertj.core.api.Assertions.catchThrowableOfType(RateLimitExceededException.class,
				() -> exports.weighted("initech", 1, done));
		assertThat(over.getRefusals()).singleElement()
			.satisfies((refusal) -> assertThat(refusal.limit().limit()).isEqualTo(10));
	}

	@Test
	void aCallThatThrowsGivesItsSlotBack() {
		Exports exports = context.getBean(Exports.class);
		for (int i = 0; i < 3; i++) {
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> exports.fail("acme"));
		}
	}

	@Test
	void aFutureHoldsItsSlotUntilItCompletes() {
		Exports exports = context.getBean(Exports.class);
		CompletableFuture<String> gate = new CompletableFuture<>();
		CompletableFuture<String> first = exports.later("acme", gate);
		CompletableFuture<String> second = exports.later("acme", CompletableFuture.completedFuture("second"));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(second::join)
			.withCauseInstanceOf(RateLimitExceededException.class);
		gate.complete("first");
		assertThat(first.join()).isEqualTo("first");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> exports.later("acme", CompletableFuture.completedFuture("third")).handle((value, failure) -> value)
				.join() != null);
	}

	@Test
	void aPublisherHoldsItsSlotUntilItTerminates() {
		Exports exports = context.getBean(Exports.class);
		CompletableFuture<String> gate = new CompletableFuture<>();
		CompletableFuture<String> first = exports.mono("acme", gate).toFuture();
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> exports.mono("acme", CompletableFuture.completedFuture("second")).block());
		gate.complete("first");
		assertThat(first.join()).isEqualTo("first");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> "third".equals(exports.mono("acme", CompletableFuture.completedFuture("third"))
				.onErrorReturn(RateLimitExceededException.class, "refused")
				.block()));
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Exports.class)
	static class Application {

	}

	static class Exports {

		private final AtomicInteger running = new AtomicInteger();

		private final AtomicInteger most = new AtomicInteger();

		public int running() {
			return this.running.get();
		}

		public int most() {
			return this.most.get();
		}

		@RateLimited(name = "export", concurrency = 2, key = "#tenant")
		public String export(String tenant, CompletableFuture<Void> gate) {
			this.most.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			try {
				gate.join();
				return "exported";
			}
			finally {
				this.running.decrementAndGet();
			}
		}

		@RateLimited(name = "weighted", concurrency = 2, limit = 10, window = "1h", key = "#tenant", cost = "#weight")
		public String weighted(String tenant, long weight, CompletableFuture<Void> gate) {
			this.running.incrementAndGet();
			try {
				gate.join();
				return "weighed " + weight;
			}
			finally {
				this.running.decrementAndGet();
			}
		}

		@RateLimited(name = "failing", concurrency = 1, key = "#tenant")
		public String fail(String tenant) {
			throw new IllegalStateException("the export failed");
		}

		@RateLimited(name = "later", concurrency = 1, concurrencyLease = "5m", key = "#tenant")
		public CompletableFuture<String> later(String tenant, CompletableFuture<String> gate) {
			return gate;
		}

		@RateLimited(name = "mono", concurrency = 1, key = "#tenant")
		public Mono<String> mono(String tenant, CompletableFuture<String> gate) {
			return Mono.fromFuture(gate);
		}

	}

}

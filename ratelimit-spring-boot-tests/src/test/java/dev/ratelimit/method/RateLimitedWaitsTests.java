package dev.ratelimit.method;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
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

import dev.ratelimit.testsupport.Waiters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @RateLimited(maxWait = ...)} on bean methods of two instances sharing one Redis: calls the limit would refuse
 * wait for their permits and get them in successive windows, never more than the limit in one, a blocking method's
 * thread waiting, a {@code Mono} or a {@code CompletableFuture} holding none; a permit beyond {@code maxWait} is
 * refused at once.
 */
class RateLimitedWaitsTests {

	private static final int LIMIT = 3;

	private static final int CALLS = 12;

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@BeforeAll
	static void start() {
		Map<String, Object> properties = Map.of("spring.data.redis.url", RedisTestServer.shared().url(),
				"ratelimit.key-prefix", "method-waits-" + UUID.randomUUID().toString().substring(0, 8));
		for (int i = 0; i < 2; i++) {
			instances.add(new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
				.properties(properties)
				.run());
		}
	}

	@AfterAll
	static void stop() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void blockingCallsOnTwoInstancesWaitForTheirPermitsInSuccessiveWindows() throws Exception {
		String tenant = "t-" + UUID.randomUUID().toString().substring(0, 8);
		ExecutorService threads = Executors.newFixedThreadPool(CALLS);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<String>> calls = new ArrayList<>();
			for (int i = 0; i < CALLS; i++) {
				Imports imports = instances.get(i % 2).getBean(Imports.class);
				calls.add(threads.submit(() -> {
					start.await();
					return imports.blocking(tenant);
				}));
			}
			start.countDown();
			// the threads of the calls that wait are held, sleeping until their retry time
			await().atMost(Duration.ofSeconds(10))
				.until(() -> waiting("imports") > 0 && Waiters.threadsWaiting() == waiting("imports"));
			for (Future<String> call : calls) {
				assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("imported");
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertSuccessiveWindows("blocking:" + tenant);
	}

	@Test
	void publishersAndFuturesWaitWithoutHoldingAThread() throws Exception {
		String tenant = "t-" + UUID.randomUUID().toString().substring(0, 8);
		List<Mono<String>> calls = new ArrayList<>();
		for (int i = 0; i < CALLS; i++) {
			Imports imports = instances.get(i % 2).getBean(Imports.class);
			calls.add(imports.reactive(tenant));
			calls.add(Mono.fromFuture(() -> imports.future(tenant)));
		}
		CompletableFuture<List<String>> results = Flux.merge(calls).collectList().toFuture();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> waiting("imports-reactive") > 0 && waiting("imports-future") > 0);
		assertThat(Waiters.threadsWaiting()).as("threads held by waiting calls").isZero();
		assertThat(results.get(30, TimeUnit.SECONDS)).hasSize(2 * CALLS).containsOnly("imported");
		assertSuccessiveWindows("reactive:" + tenant);
		assertSuccessiveWindows("future:" + tenant);
	}

	@Test
	void aPermitBeyondMaxWaitIsRefusedAtOnce() {
		String tenant = "t-" + UUID.randomUUID().toString().substring(0, 8);
		Imports imports = instances.get(0).getBean(Imports.class);
		assertThat(imports.hourly(tenant)).isEqualTo("imported");
		long started = System.nanoTime();
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> imports.hourly(tenant))
			.satisfies((ex) -> assertThat(ex.getRetryAfter()).isGreaterThan(Duration.ofMinutes(59)));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("refused without a wait")
			.isLessThan(Duration.ofSeconds(1));
	}

	/** Groups the grants by window (a window's grants come together, windows 1 s or more apart) and counts them. */
	private static void assertSuccessiveWindows(String which) {
		List<Integer> perWindow = Waiters.perWindow(Imports.granted.getOrDefault(which, new ConcurrentLinkedQueue<>()));
		System.out.println("[waits] " + which.replaceAll(":.*", "") + ": " + CALLS + " calls on two instances, " + LIMIT
				+ " per second, permits per window " + perWindow);
		assertThat(perWindow).as("calls per window").allSatisfy((calls) -> assertThat(calls).isLessThanOrEqualTo(LIMIT));
		assertThat(perWindow.stream().mapToInt(Integer::intValue).sum()).isEqualTo(CALLS);
		assertThat(perWindow).as("windows used").hasSizeLessThanOrEqualTo(CALLS / LIMIT + 1);
	}

	private static double waiting(String rule) {
		double waiting = 0;
		for (ConfigurableApplicationContext instance : instances) {
			Gauge gauge = instance.getBean(MeterRegistry.class).find("ratelimit.waiting").tag("rule", rule).gauge();
			waiting += (gauge != null) ? gauge.value() : 0;
		}
		return waiting;
	}


	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Imports.class)
	static class Application {

	}

	static class Imports {

		/** When each call was let in, by method and tenant. */
		static final Map<String, ConcurrentLinkedQueue<Long>> granted = new java.util.concurrent.ConcurrentHashMap<>();

		private static void grant(String calls) {
			granted.computeIfAbsent(calls, (key) -> new ConcurrentLinkedQueue<>()).add(System.currentTimeMillis());
		}

		@RateLimited(name = "imports", limit = LIMIT, window = "1s", key = "#tenant", maxWait = "10s")
		public String blocking(String tenant) {
			grant("blocking:" + tenant);
			return "imported";
		}

		@RateLimited(name = "imports-reactive", limit = LIMIT, window = "1s", key = "#tenant", maxWait = "10s")
		public Mono<String> reactive(String tenant) {
			return Mono.fromSupplier(() -> {
				grant("reactive:" + tenant);
				return "imported";
			});
		}

		@RateLimited(name = "imports-future", limit = LIMIT, window = "1s", key = "#tenant", maxWait = "10s")
		public CompletableFuture<String> future(String tenant) {
			grant("future:" + tenant);
			return CompletableFuture.completedFuture("imported");
		}

		@RateLimited(name = "imports-hourly", limit = 1, window = "1h", key = "#tenant", maxWait = "1s")
		public String hourly(String tenant) {
			return "imported";
		}

	}

}

package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rules that limit requests in flight ({@code concurrency}) on every stack, two instances sharing one Redis: never
 * more requests in the handler than the limit (counted by the handler), refusals with 429, a short
 * {@code Retry-After} and a problem detail that says so, every slot given back when its response completes
 * (asynchronous handlers included), and a refusal for concurrency charging none of the rule's rate limit.
 */
class RateLimitConcurrencyOnEveryStackTests {

	private static final Map<String, String> RULES = Map.of("ratelimit.rules.export.paths", "/export",
			"ratelimit.rules.export.key", "header:X-Tenant", "ratelimit.rules.export.concurrency", "5",
			"ratelimit.rules.report.paths", "/held", "ratelimit.rules.report.key", "header:X-Tenant",
			"ratelimit.rules.report.concurrency", "1", "ratelimit.rules.report.limit", "2",
			"ratelimit.rules.report.window", "15m");

	/** Per stack, two instances sharing a key prefix: one budget, as two instances of one service have. */
	private static final Map<WebStack, List<StackApp>> instances = new EnumMap<>(WebStack.class);

	@AfterAll
	static void stop() {
		instances.values().forEach((apps) -> apps.forEach(StackApp::close));
	}

	private static synchronized List<StackApp> instances(WebStack stack) {
		return instances.computeIfAbsent(stack, (key) -> {
			Map<String, String> properties = new java.util.HashMap<>(RULES);
			properties.put("ratelimit.key-prefix", "inflight-" + UUID.randomUUID().toString().substring(0, 8));
			return List.of(stack.start(properties, Work.class), stack.start(properties, Work.class));
		});
	}

	@BeforeEach
	void reset() {
		Work.inFlight.set(0);
		Work.most.set(0);
		Work.full = CompletableFuture.completedFuture(null);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void fiftyClientsOnTwoInstancesNeverHaveMoreThanTheLimitInFlight(WebStack stack) throws Exception {
		List<StackApp> apps = instances(stack);
		Work.full = new CompletableFuture<>();
		int clients = 50;
		int rounds = 4;
		ExecutorService threads = Executors.newFixedThreadPool(clients);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<List<StackApp.Reply>>> replies = new ArrayList<>();
			for (int i = 0; i < clients; i++) {
				StackApp app = apps.get(i % 2);
				replies.add(threads.submit(() -> {
					start.await();
					List<StackApp.Reply> mine = new ArrayList<>();
					for (int round = 0; round < rounds; round++) {
						mine.add(app.get("/export", "X-Tenant", "acme"));
					}
					return mine;
				}));
			}
			start.countDown();
			List<StackApp.Reply> all = new ArrayList<>();
			for (Future<List<StackApp.Reply>> each : replies) {
				all.addAll(each.get(60, TimeUnit.SECONDS));
			}
			assertThat(all).hasSize(clients * rounds);
			assertThat(all).extracting(StackApp.Reply::status).containsOnly(200, 429);
			List<StackApp.Reply> refused = all.stream().filter((reply) -> reply.status() == 429).toList();
			assertThat(refused).isNotEmpty().allSatisfy((reply) -> {
				assertThat(reply.header("Retry-After")).hasValue("1");
				assertThat(reply.body()).contains("Too many requests in flight: 'export' allows 5 at a time");
			});
			assertThat(Work.most.get()).as("requests in the handler at once, across both instances").isEqualTo(5);
		}
		finally {
			threads.shutdownNow();
		}
		// every slot is given back once its response completed
		StringRedisTemplate redis = apps.get(0).context().getBean(StringRedisTemplate.class);
		String slots = apps.get(0).keyPrefix() + ":concurrency:export:header:acme";
		await().atMost(java.time.Duration.ofSeconds(10)).until(() -> redis.opsForZSet().zCard(slots) == 0);
		assertThat(apps.get(0).get("/export", "X-Tenant", "acme").status()).isEqualTo(200);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aRequestRefusedForConcurrencyChargesNoneOfTheRateLimit(WebStack stack) throws Exception {
		List<StackApp> apps = instances(stack);
		String tenant = "t-" + UUID.randomUUID().toString().substring(0, 8);
		ExecutorService thread = Executors.newSingleThreadExecutor();
		try {
			Work.release = new CompletableFuture<>();
			Future<StackApp.Reply> held = thread.submit(() -> apps.get(0).get("/held", "X-Tenant", tenant));
			await().atMost(java.time.Duration.ofSeconds(10)).until(() -> Work.inFlight.get() == 1);
			for (int i = 0; i < 3; i++) {
				StackApp.Reply refused = apps.get(i % 2).get("/held", "X-Tenant", tenant);
				assertThat(refused.status()).isEqualTo(429);
				assertThat(refused.body()).contains("'report' allows 1 at a time");
			}
			Work.release.complete("done");
			assertThat(held.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
			// given back once the response completed: on WebFlux, just after the client read it
			StringRedisTemplate redis = apps.get(0).context().getBean(StringRedisTemplate.class);
			String slots = apps.get(0).keyPrefix() + ":concurrency:report:header:" + tenant;
			await().atMost(java.time.Duration.ofSeconds(10)).until(() -> redis.opsForZSet().zCard(slots) == 0);
			// one permit of the two left: the refusals took none
			StackApp.Reply second = apps.get(1).get("/held", "X-Tenant", tenant);
			assertThat(second.status()).isEqualTo(200);
			assertThat(second.header("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.startsWith("\"report\";r=0;");
			assertThat(second.header("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.isEqualTo("\"report\";q=2;w=900, \"report-concurrency\";q=1;qu=\"concurrent-requests\"");
			assertThat(apps.get(0).get("/held", "X-Tenant", tenant).status()).isEqualTo(429);
		}
		finally {
			Work.release.complete("done");
			thread.shutdownNow();
		}
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aClientThatGoesAwayWhileItsRequestIsDecidedLeavesNoSlotHeld(WebStack stack) throws Exception {
		Map<String, String> properties = new java.util.HashMap<>(Map.of("ratelimit.rules.slow.paths", "/export",
				"ratelimit.rules.slow.key", "bean:slowTenant", "ratelimit.rules.slow.concurrency", "1"));
		SlowKey.reset();
		try (StackApp app = stack.start(properties, Work.class,
				(stack == WebStack.SERVLET) ? SlowServletKey.class : SlowReactiveKey.class)) {
			// the key is read only when the test says: the client is gone before the slot is taken
			try (java.net.Socket gone = app.open("/export")) {
				assertThat(SlowKey.asked.await(10, TimeUnit.SECONDS)).isTrue();
			}
			if (stack == WebStack.WEBFLUX) {
				// the server saw the client go: the exchange is cancelled while its decision is still to come
				assertThat(SlowKey.cancelled.await(10, TimeUnit.SECONDS)).isTrue();
			}
			SlowKey.answer.complete("acme");
			// the decision went on and took the slot (it is counted once taken); it is given back, not held and renewed
			// forever
			io.micrometer.core.instrument.MeterRegistry meters = app.context()
				.getBean(io.micrometer.core.instrument.MeterRegistry.class);
			await().atMost(java.time.Duration.ofSeconds(10))
				.until(() -> meters.find("ratelimit.decisions").tag("rule", "slow").counters().stream()
					.mapToDouble(io.micrometer.core.instrument.Counter::count)
					.sum() >= 1);
			StringRedisTemplate redis = app.context().getBean(StringRedisTemplate.class);
			String slots = app.keyPrefix() + ":concurrency:slow:bean:acme";
			await().atMost(java.time.Duration.ofSeconds(10)).until(() -> redis.opsForZSet().zCard(slots) == 0);
			assertThat(app.get("/export").status()).isEqualTo(200);
		}
	}

	/** The key of the slow rule, read when the test completes {@link #answer}. */
	static final class SlowKey {

		static volatile CountDownLatch asked = new CountDownLatch(1);

		static volatile CountDownLatch cancelled = new CountDownLatch(1);

		static volatile CompletableFuture<String> answer = new CompletableFuture<>();

		static void reset() {
			asked = new CountDownLatch(1);
			cancelled = new CountDownLatch(1);
			answer = new CompletableFuture<>();
		}

	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class SlowServletKey {

		@org.springframework.context.annotation.Bean
		dev.ratelimit.web.servlet.RateLimitKeyResolver slowTenant() {
			return (request) -> {
				SlowKey.asked.countDown();
				return SlowKey.answer.join();
			};
		}

	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class SlowReactiveKey {

		@org.springframework.context.annotation.Bean
		dev.ratelimit.web.reactive.ReactiveRateLimitKeyResolver slowTenant() {
			return (exchange) -> reactor.core.publisher.Mono.defer(() -> {
				SlowKey.asked.countDown();
				return reactor.core.publisher.Mono.fromFuture(SlowKey.answer);
			});
		}

		/** First of the filters: tells the test when the server cancels the exchange. */
		@org.springframework.context.annotation.Bean
		org.springframework.web.server.WebFilter cancellationWatch() {
			return new OrderedWatch();
		}

	}

	static final class OrderedWatch implements org.springframework.web.server.WebFilter, org.springframework.core.Ordered {

		@Override
		public reactor.core.publisher.Mono<Void> filter(org.springframework.web.server.ServerWebExchange exchange,
				org.springframework.web.server.WebFilterChain chain) {
			return chain.filter(exchange).doOnCancel(() -> SlowKey.cancelled.countDown());
		}

		@Override
		public int getOrder() {
			return org.springframework.core.Ordered.HIGHEST_PRECEDENCE;
		}

	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aCostOnARuleOfRequestsInFlightOnlyStopsTheApplication(WebStack stack) {
		org.assertj.core.api.Assertions
			.assertThatThrownBy(() -> stack.start(Map.of("ratelimit.rules.weighed.paths", "/weighed",
					"ratelimit.rules.weighed.concurrency", "2", "ratelimit.rules.weighed.cost", "3")).close())
			.satisfies((ex) -> assertThat(RateLimitSoftLimitsOnEveryStackTests.messages(ex))
				.contains("Property ratelimit.rules.weighed.cost with value '3' is invalid")
				.contains("remove cost, or set limit and window"));
	}

	@RestController
	static class Work {

		static final AtomicInteger inFlight = new AtomicInteger();

		static final AtomicInteger most = new AtomicInteger();

		static volatile CompletableFuture<String> release = CompletableFuture.completedFuture("done");

		/**
		 * Completes once as many requests as {@code export} allows at a time were in the handler together; complete
		 * unless a test waits for that.
		 */
		static volatile CompletableFuture<Void> full = CompletableFuture.completedFuture(null);

		/**
		 * Work answered asynchronously (on the servlet stack the slot is given back when it completes): it lasts until
		 * the limit's 5 requests were in the handler together (2 s at most) when a test waits for that, then 20 ms, so that the test sees the
		 * limit reached however slowly a loaded machine lets the clients in, and sees a sixth if one got in.
		 */
		@GetMapping("/export")
		CompletableFuture<String> export() {
			int now = inFlight.incrementAndGet();
			most.accumulateAndGet(now, Math::max);
			if (now >= 5) {
				full.complete(null);
			}
			return full.copy()
				.completeOnTimeout(null, 2, TimeUnit.SECONDS)
				.thenApplyAsync((filled) -> {
					inFlight.decrementAndGet();
					return "exported";
				}, CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS));
		}

		/** Work that lasts until the test lets it end. */
		@GetMapping("/held")
		CompletableFuture<String> held() {
			inFlight.incrementAndGet();
			return release.whenComplete((done, failure) -> inFlight.decrementAndGet());
		}

	}

}

package dev.ratelimit.web;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
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

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.rules.flow.RateLimitContext;
import dev.ratelimit.testsupport.CurlRequest;
import dev.ratelimit.testsupport.DocumentationTranscripts;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.ratelimit.testsupport.Waiters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Rules with {@code max-wait} on every stack, two instances sharing one Redis: a request the limit would refuse waits
 * for the retry time Redis gave and is decided again, so that N waiters against L per window get their permits in
 * successive windows, never more than L in one; a slot of work in flight is waited for; a permit that would come after
 * {@code max-wait} is refused at once, and so is a request past {@code max-waiting}; a servlet request's thread waits
 * while WebFlux holds none; the {@code Server-Timing} header and the {@code ratelimit.waits} timer tell the wait.
 */
class RateLimitWaitsOnEveryStackTests {

	private static final int LIMIT = 4;

	private static final int WAITERS = 16;

	private static final Map<String, String> RULES = Map.ofEntries(Map.entry("ratelimit.rules.queue.paths", "/queue"),
			Map.entry("ratelimit.rules.queue.key", "header:X-Tenant"),
			Map.entry("ratelimit.rules.queue.limit", Integer.toString(LIMIT)),
			Map.entry("ratelimit.rules.queue.window", "1s"), Map.entry("ratelimit.rules.queue.max-wait", "10s"),
			Map.entry("ratelimit.rules.hourly.paths", "/hourly"), Map.entry("ratelimit.rules.hourly.limit", "1"),
			Map.entry("ratelimit.rules.hourly.window", "1h"), Map.entry("ratelimit.rules.hourly.max-wait", "2s"),
			Map.entry("ratelimit.rules.export.paths", "/export"), Map.entry("ratelimit.rules.export.concurrency", "1"),
			Map.entry("ratelimit.rules.export.max-wait", "20s"), Map.entry("ratelimit.rules.export.max-waiting", "3"));

	/** Per stack, two instances sharing a key prefix: one budget, as two instances of one service have. */
	private static final Map<WebStack, List<StackApp>> instances = new EnumMap<>(WebStack.class);

	@AfterAll
	static void stop() {
		instances.values().forEach((apps) -> apps.forEach(StackApp::close));
	}

	private static synchronized List<StackApp> instances(WebStack stack) {
		return instances.computeIfAbsent(stack, (key) -> {
			Map<String, String> properties = new HashMap<>(RULES);
			properties.put("ratelimit.key-prefix", "waits-" + UUID.randomUUID().toString().substring(0, 8));
			return List.of(stack.start(properties, Queue.class), stack.start(properties, Queue.class));
		});
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void waitersOnTwoInstancesGetTheirPermitsInSuccessiveWindowsNeverMoreThanTheLimitInOne(WebStack stack)
			throws Exception {
		List<StackApp> apps = instances(stack);
		String tenant = "t-" + UUID.randomUUID().toString().substring(0, 8);
		Queue.windowEnds.clear();
		ExecutorService threads = Executors.newFixedThreadPool(WAITERS);
		List<StackApp.Reply> replies = new ArrayList<>();
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<StackApp.Reply>> sent = new ArrayList<>();
			for (int i = 0; i < WAITERS; i++) {
				StackApp app = apps.get(i % 2);
				sent.add(threads.submit(() -> {
					start.await();
					return app.get("/queue", "X-Tenant", tenant);
				}));
			}
			start.countDown();
			for (Future<StackApp.Reply> each : sent) {
				replies.add(each.get(60, TimeUnit.SECONDS));
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(replies).extracting(StackApp.Reply::status).containsOnly(200);
		// the permits' windows, told by Redis to each request that got one: its end on this machine's clock
		List<Integer> perWindow = Waiters.perWindow(Queue.windowEnds);
		System.out.println("[waits] " + stack + ": " + WAITERS + " requests on two instances, " + LIMIT
				+ " per second, permits per window " + perWindow);
		assertThat(perWindow).as("permits per window").allSatisfy((permits) -> assertThat(permits).isLessThanOrEqualTo(LIMIT));
		assertThat(perWindow.stream().mapToInt(Integer::intValue).sum()).isEqualTo(WAITERS);
		assertThat(perWindow).as("windows used").hasSizeLessThanOrEqualTo(WAITERS / LIMIT + 1);
		List<StackApp.Reply> waited = replies.stream().filter((reply) -> reply.header("Server-Timing").isPresent()).toList();
		assertThat(waited).as("requests that waited").hasSize(WAITERS - LIMIT)
			.allSatisfy((reply) -> assertThat(reply.header("Server-Timing").orElseThrow())
				.matches("ratelimit-wait;dur=\\d+\\.\\d"));
		assertThat(waits(apps, "queue", "permitted")).isEqualTo(WAITERS - LIMIT);
		assertThat(decisions(apps, "queue", "rejected")).isZero();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aPermitThatWouldComeAfterMaxWaitIsRefusedAtOnce(WebStack stack) {
		StackApp app = instances(stack).get(0);
		app.deleteBudgets();
		assertThat(app.get("/hourly").status()).isEqualTo(200);
		long refusedBefore = waits(List.of(app), "hourly", "refused");
		StackApp.Reply refused = app.get("/hourly");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("Server-Timing")).isEmpty();
		assertThat(Long.parseLong(refused.header("Retry-After").orElseThrow())).isGreaterThan(3000);
		assertThat(waits(List.of(app), "hourly", "refused")).isEqualTo(refusedBefore + 1);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aSlotIsWaitedForAndMaxWaitingBoundsTheWaitersAServletThreadWaitsAndWebFluxHoldsNone(WebStack stack)
			throws Exception {
		List<StackApp> apps = instances(stack);
		StackApp app = apps.get(0);
		await().atMost(Duration.ofSeconds(30)).until(() -> Waiters.threadsWaiting() == 0);
		Queue.release = new CompletableFuture<>();
		ExecutorService threads = Executors.newCachedThreadPool();
		try {
			Future<StackApp.Reply> holder = threads.submit(() -> apps.get(1).get("/export"));
			await().atMost(Duration.ofSeconds(10)).until(() -> Queue.exporting.get() == 1);
			// three wait on this instance (max-waiting 3) for the slot the other instance holds
			List<Future<StackApp.Reply>> waiters = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				waiters.add(threads.submit(() -> app.get("/export")));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> waiting(app, "export") == 3);
			// threads held while three requests wait: the servlet stack's request threads, none on WebFlux
			if (stack == WebStack.SERVLET) {
				await().atMost(Duration.ofSeconds(10)).until(() -> Waiters.threadsWaiting() == 3);
			}
			else {
				assertThat(Waiters.threadsWaiting()).as("threads held by waiting requests").isZero();
			}
			// a fourth is refused at once
			long fullBefore = waits(List.of(app), "export", "queue-full");
			StackApp.Reply refused = app.get("/export");
			assertThat(refused.status()).isEqualTo(429);
			assertThat(waits(List.of(app), "export", "queue-full")).isEqualTo(fullBefore + 1);
			assertThat(app.get("/open").status()).isEqualTo(200);
			Queue.release.complete("done");
			assertThat(holder.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
			for (Future<StackApp.Reply> waiter : waiters) {
				StackApp.Reply reply = waiter.get(30, TimeUnit.SECONDS);
				assertThat(reply.status()).isEqualTo(200);
				assertThat(reply.header("Server-Timing")).isPresent();
			}
		}
		finally {
			Queue.release.complete("done");
			threads.shutdownNow();
		}
	}

	@Test
	void theDocumentedTranscriptIsWhatAWaitedRequestGets() throws Exception {
		StackApp app = instances(WebStack.SERVLET).get(0);
		String tenant = "doc-" + UUID.randomUUID().toString().substring(0, 8);
		for (int i = 0; i < LIMIT; i++) {
			assertThat(app.get("/queue", "X-Tenant", tenant).status()).isEqualTo(200);
		}
		int port = Integer.parseInt(app.context().getEnvironment().getRequiredProperty("local.server.port"));
		CurlRequest.Response waited = CurlRequest.get(port, "/queue").header("X-Tenant", tenant).send();
		assertThat(waited.status()).isEqualTo(200);
		String transcript = "$ curl -si localhost:8080/queue -H 'X-Tenant: acme'\n"
				+ waited.statusAndHeaders("RateLimit-Policy", "RateLimit", "Server-Timing") + "\n";
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "rules.md"),
				"RateLimitWaitsOnEveryStackTests", null), transcript);
	}

	@Test
	void aMaxWaitOnARuleThatNeverRefusesStopsTheApplicationNamingTheProperty() {
		// the rules' binding is the same on both stacks
		WebStack stack = WebStack.SERVLET;
		assertThatThrownBy(() -> stack.start(Map.of("ratelimit.rules.watch.paths", "/queue", "ratelimit.rules.watch.limit",
				"5", "ratelimit.rules.watch.window", "1m", "ratelimit.rules.watch.shadow", "true",
				"ratelimit.rules.watch.max-wait", "2s"), Queue.class).close())
			.satisfies((ex) -> assertThat(RateLimitSoftLimitsOnEveryStackTests.messages(ex))
				.contains("ratelimit.rules.watch.max-wait")
				.contains("the rule never refuses a call (shadow), so none waits"));
		assertThatThrownBy(() -> stack.start(Map.of("ratelimit.rules.few.paths", "/queue", "ratelimit.rules.few.limit",
				"5", "ratelimit.rules.few.window", "1m", "ratelimit.rules.few.max-waiting", "3"), Queue.class).close())
			.satisfies((ex) -> assertThat(RateLimitSoftLimitsOnEveryStackTests.messages(ex))
				.contains("ratelimit.rules.few.max-waiting")
				.contains("set max-wait too"));
	}



	private static long waits(List<StackApp> apps, String rule, String outcome) {
		long count = 0;
		for (StackApp app : apps) {
			Timer timer = app.context().getBean(MeterRegistry.class).find("ratelimit.waits").tags("rule", rule, "outcome",
					outcome).timer();
			count += (timer != null) ? timer.count() : 0;
		}
		return count;
	}

	private static double waiting(StackApp app, String rule) {
		io.micrometer.core.instrument.Gauge gauge = app.context().getBean(MeterRegistry.class).find("ratelimit.waiting")
			.tag("rule", rule).gauge();
		return (gauge != null) ? gauge.value() : 0;
	}

	private static long decisions(List<StackApp> apps, String rule, String outcome) {
		long count = 0;
		for (StackApp app : apps) {
			io.micrometer.core.instrument.Counter counter = app.context().getBean(MeterRegistry.class)
				.find("ratelimit.decisions").tags("rule", rule, "outcome", outcome).counter();
			count += (counter != null) ? (long) counter.count() : 0;
		}
		return count;
	}

	@RestController
	static class Queue {

		static final ConcurrentLinkedQueue<Long> windowEnds = new ConcurrentLinkedQueue<>();

		static final java.util.concurrent.atomic.AtomicInteger exporting = new java.util.concurrent.atomic.AtomicInteger();

		static volatile CompletableFuture<String> release = CompletableFuture.completedFuture("done");

		@GetMapping("/queue")
		String queue(RateLimitContext limits) {
			windowEnds.add(System.currentTimeMillis() + limits.resetAfter("queue").orElseThrow().toMillis());
			return "ok";
		}

		@GetMapping("/hourly")
		String hourly() {
			return "ok";
		}

		@GetMapping("/export")
		CompletableFuture<String> export() {
			exporting.incrementAndGet();
			return release.whenComplete((done, failure) -> exporting.decrementAndGet());
		}

	}

}

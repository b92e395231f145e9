package dev.ratelimit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisServerProcess;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample app under steady concurrent load while its Redis server is stopped for five seconds and
 * started again, in the default fail-open mode: no 5xx, latency during the outage bounded by
 * {@code ratelimit.timeout}, limiting back in force soon after Redis returns, no request thread left
 * stuck. Prints the figures per phase.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "ratelimit.timeout=200ms",
		"ratelimit.circuit-breaker.open-duration=1s", "sample.embedded-redis.enabled=false",
		// a short window: rejections the instance remembers run out within the outage
		"ratelimit.rules.greeting.limit=5", "ratelimit.rules.greeting.window=2s" })
class RedisOutageChaosTests {

	private static final int LOAD_THREADS = 8;

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	private static RedisServerProcess redis = RedisServerProcess.start(RedisBinary.find());

	private static final int REDIS_PORT = redis.port();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();

	private volatile String phase = "before";

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> "redis://127.0.0.1:" + REDIS_PORT);
	}

	@AfterAll
	static void stopRedis() {
		redis.stop();
	}

	@Test
	void keepsServingThroughARedisOutageAndLimitsAgainAfterIt() throws Exception {
		AtomicBoolean running = new AtomicBoolean(true);
		List<Thread> load = new ArrayList<>();
		for (int i = 0; i < LOAD_THREADS; i++) {
			Thread thread = new Thread(() -> {
				while (running.get()) {
					send();
				}
			}, "chaos-load-" + i);
			thread.start();
			load.add(thread);
		}
		try {
			await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(30))
				.until(() -> count("before", 429) > 0);

			this.phase = "outage";
			long outageStarted = System.nanoTime();
			redis.stop();
			// five seconds of outage; the bound leaves a loaded machine's poll thread time to wake
			await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(60)).until(() -> true);

			redis = RedisServerProcess.start(RedisBinary.find(), REDIS_PORT);
			this.phase = "after";
			long restarted = System.nanoTime();
			// Redis returns empty: the budget is fresh, and spent within a few requests
			await().atMost(Duration.ofSeconds(20)).until(() -> count("after", 429) > 0);
			Duration backInForce = Duration.ofNanos(System.nanoTime() - restarted);
			await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(60)).until(() -> true);
			running.set(false);
			for (Thread thread : load) {
				thread.join(TimeUnit.SECONDS.toMillis(10));
			}
			report(Duration.ofNanos(restarted - outageStarted), backInForce);

			assertThat(load).as("load threads that never returned").noneMatch(Thread::isAlive);
			// nor is any of the server's request threads still inside the limiter
			await().atMost(Duration.ofSeconds(30)).until(() -> Thread.getAllStackTraces()
				.entrySet()
				.stream()
				.filter((thread) -> thread.getKey().getName().contains("-exec-"))
				.noneMatch((thread) -> Arrays.stream(thread.getValue())
					.anyMatch((frame) -> frame.getClassName().startsWith("dev.ratelimit."))));
			assertThat(this.samples).as("5xx answers").noneMatch((sample) -> sample.status >= 500);
			assertThat(this.samples).as("failed requests").noneMatch((sample) -> sample.status < 0);
			assertThat(count("outage", 200)).as("requests served during the outage").isGreaterThan(50);
			// every decision gives up after the timeout; the breaker then spares even that
			assertThat(percentile("outage", 0.99)).isLessThan(TIMEOUT.plusMillis(300));
			assertThat(percentile("outage", 1.0)).isLessThan(Duration.ofSeconds(1));
			assertThat(backInForce).isLessThan(Duration.ofSeconds(15));
		}
		finally {
			running.set(false);
		}
	}

	private void send() {
		String current = this.phase;
		long started = System.nanoTime();
		int status;
		try {
			HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/api/greeting"))
				.timeout(Duration.ofSeconds(10))
				.build();
			status = this.http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (Exception ex) {
			status = -1;
		}
		this.samples.add(new Sample(current, status, System.nanoTime() - started));
	}

	private long count(String phase, int status) {
		return this.samples.stream().filter((s) -> s.phase.equals(phase) && s.status == status).count();
	}

	private Duration percentile(String phase, double percentile) {
		List<Long> latencies = this.samples.stream()
			.filter((s) -> s.phase.equals(phase))
			.map((s) -> s.nanos)
			.sorted(Comparator.naturalOrder())
			.toList();
		int index = (int) Math.min(latencies.size() - 1, Math.ceil(percentile * latencies.size()) - 1);
		return Duration.ofNanos(latencies.get(Math.max(index, 0)));
	}

	private void report(Duration outage, Duration backInForce) {
		System.out.printf("chaos: %d load threads, Redis stopped for %d ms, limiting back %d ms after restart%n",
				LOAD_THREADS, outage.toMillis(), backInForce.toMillis());
		for (String phase : List.of("before", "outage", "after")) {
			Map<Integer, Long> statuses = new TreeMap<>(this.samples.stream()
				.filter((s) -> s.phase.equals(phase))
				.collect(Collectors.groupingBy((s) -> s.status, Collectors.counting())));
			System.out.printf("chaos %-6s: %6d requests, statuses %s, latency p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
					phase, statuses.values().stream().mapToLong(Long::longValue).sum(), statuses,
					percentile(phase, 0.50).toNanos() / 1e6, percentile(phase, 0.99).toNanos() / 1e6,
					percentile(phase, 1.0).toNanos() / 1e6);
		}
	}

	private record Sample(String phase, int status, long nanos) {
	}

}

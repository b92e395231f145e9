package dev.ratelimit.sample;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sample app, separate JVM processes sharing one Redis, under 32 concurrent
 * client threads: the fixed window, the sliding log, the token bucket and GCRA admit exactly the limit,
 * the sliding window counter never more.
 */
class MultiInstanceExactnessTests {

	private static final int LIMIT = 50;

	private static final int CLIENTS = 32;

	private static final int REQUESTS_PER_ALGORITHM = 400;

	private static final List<String> ALGORITHMS = List.of("fixed-window", "sliding-window-log",
			"sliding-window-counter", "token-bucket", "gcra");

	private static final List<Process> instances = new ArrayList<>();

	private static final List<Integer> ports = new ArrayList<>();

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeAll
	static void startTwoInstances() throws Exception {
		String prefix = "multi-" + UUID.randomUUID().toString().substring(0, 8);
		for (int i = 0; i < 2; i++) {
			int port = RedisServerProcess.freePort();
			List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
					"-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
					SampleApplication.class.getName(), "--server.port=" + port, "--server.address=127.0.0.1",
					"--spring.data.redis.url=" + RedisTestServer.shared().url(), "--ratelimit.key-prefix=" + prefix,
					"--sample.embedded-redis.enabled=false", "--spring.main.banner-mode=off",
					// exactness is the point: a slow moment must show as an error, never as a pass
					"--ratelimit.timeout=10s", "--ratelimit.failure-mode=fail-closed"));
			for (String algorithm : ALGORITHMS) {
				// one long window, so that the whole test falls within it
				command.add("--ratelimit.rules." + algorithm + ".limit=" + LIMIT);
				command.add("--ratelimit.rules." + algorithm + ".window=1h");
			}
			File log = File.createTempFile("sample-instance-" + i + "-", ".log");
			log.deleteOnExit();
			instances.add(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start());
			ports.add(port);
		}
		for (int i = 0; i < 2; i++) {
			int port = ports.get(i);
			Process process = instances.get(i);
			await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
				assertThat(process.isAlive()).as("instance on port %d is running", port).isTrue();
				return status(port, "/actuator-free-probe") > 0;
			});
		}
	}

	@AfterAll
	static void stopInstances() throws Exception {
		for (Process process : instances) {
			process.destroy();
			if (!process.waitFor(20, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
	}

	@Test
	void admitExactlyTheLimitBetweenThemUnderConcurrentLoad() throws Exception {
		Map<String, Integer> admitted = new ConcurrentHashMap<>();
		ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
		try {
			for (String algorithm : ALGORITHMS) {
				CountDownLatch start = new CountDownLatch(1);
				AtomicInteger ok = new AtomicInteger();
				AtomicInteger refused = new AtomicInteger();
				AtomicInteger other = new AtomicInteger();
				List<Future<?>> done = new ArrayList<>();
				for (int c = 0; c < CLIENTS; c++) {
					int client = c;
					done.add(clients.submit(() -> {
						start.await();
						for (int r = 0; r < REQUESTS_PER_ALGORITHM / CLIENTS; r++) {
							int status = status(ports.get((client + r) % 2), "/algorithms/" + algorithm);
							(status == 200 ? ok : (status == 429) ? refused : other).incrementAndGet();
						}
						return null;
					}));
				}
				start.countDown();
				for (Future<?> future : done) {
					future.get(120, TimeUnit.SECONDS);
				}
				assertThat(other).as("%s: statuses other than 200 and 429", algorithm).hasValue(0);
				assertThat(ok.get() + refused.get()).isEqualTo(REQUESTS_PER_ALGORITHM / CLIENTS * CLIENTS);
				admitted.put(algorithm, ok.get());
			}
		}
		finally {
			clients.shutdownNow();
		}
		System.out.printf("two instances, %d clients, %d requests per algorithm, limit %d: admitted %s%n", CLIENTS,
				REQUESTS_PER_ALGORITHM / CLIENTS * CLIENTS, LIMIT, admitted);
		assertThat(admitted.get("fixed-window")).isEqualTo(LIMIT);
		assertThat(admitted.get("sliding-window-log")).isEqualTo(LIMIT);
		assertThat(admitted.get("token-bucket")).isEqualTo(LIMIT);
		assertThat(admitted.get("gcra")).isEqualTo(LIMIT);
		// exact too unless the run crosses an hour of the clock, where the previous hour's count weighs in
		assertThat(admitted.get("sliding-window-counter")).isBetween(1, LIMIT);
	}

	private static int status(int port, String path) throws Exception {
		try {
			HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
				.timeout(Duration.ofSeconds(30))
				.build();
			return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (java.net.ConnectException ex) {
			return -1;
		}
	}

}

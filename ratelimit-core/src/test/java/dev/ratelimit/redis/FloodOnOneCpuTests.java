package dev.ratelimit.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flood on one key from a JVM held to one CPU ({@code taskset}): 64 threads refused from the local
 * denial cache millions of times a second must not starve the few calls that do go to Redis into
 * timeouts, open the circuit breaker, or (with {@code fail-open}) let the flood through. One JVM of its own,
 * started and stopped by this test, floods with each algorithm in turn, batched and not; it counts failures, not
 * time. A flood crosses as many windows of its limit, and makes as many calls to Redis, as one of four seconds on a
 * limit of ten a second would: ten a quarter of a second for one second.
 */
class FloodOnOneCpuTests {

	private static final int THREADS = 64;

	/** The limit per window, and the windows a flood lasts. */
	private static final int LIMIT = 10;

	private static final Duration WINDOW = Duration.ofMillis(250);

	private static final int WINDOWS = 4;

	/** Each algorithm with and without batching: "ALGORITHM:batching". */
	private static final List<String> FLOODS = List.of("FIXED_WINDOW:false", "TOKEN_BUCKET:false", "GCRA:false",
			"FIXED_WINDOW:true", "TOKEN_BUCKET:true", "GCRA:true");

	@Test
	void noDecisionFailsUnderAFloodOnOneCpu() throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		Path output = Files.createTempFile("flood", ".txt");
		Path log = Files.createTempFile("flood", ".log");
		List<String> command = new ArrayList<>(List.of("taskset", "-c", "0",
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:ActiveProcessorCount=1",
				"-Xmx256m", "-cp", System.getProperty("java.class.path"), Flood.class.getName(), redis.host(),
				Integer.toString(redis.port()), output.toString()));
		command.addAll(FLOODS);
		Process flood = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			// a bound for a flooding JVM that hangs, not a measure: it ends in seconds
			assertThat(flood.waitFor(5, TimeUnit.MINUTES)).as("the flood ended").isTrue();
			assertThat(flood.exitValue()).as("the flood's exit code; it printed:%n%s", read(log)).isZero();
		}
		finally {
			flood.destroyForcibly();
		}
		List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
		String printed = read(log);
		Files.delete(output);
		Files.delete(log);
		assertThat(lines).hasSameSizeAs(FLOODS);
		for (int i = 0; i < FLOODS.size(); i++) {
			String[] counts = lines.get(i).split(" ");
			long granted = Long.parseLong(counts[0]);
			long refused = Long.parseLong(counts[1]);
			long failed = Long.parseLong(counts[2]);
			String flooded = FLOODS.get(i);
			System.out.println(flooded + ": " + granted + " granted, " + refused + " refused, " + failed + " failed");
			assertThat(failed)
				.as("decisions of %s that failed (timeout, open breaker); %s granted, %s refused; the flood printed:%n%s",
						flooded, granted, refused, printed)
				.isZero();
			// that it was a flood: many times the limit, even on a machine so busy that the one CPU floods slowly (809
			// refusals in a second were seen while other builds shared the machine; thousands on a quiet one)
			assertThat(refused).as("refused by %s", flooded).isGreaterThan((long) LIMIT * WINDOWS * 5);
			// LIMIT per window for WINDOWS windows (and the window open when the flood stops)
			assertThat(granted).as("granted by %s", flooded).isBetween((long) LIMIT, (long) LIMIT * (WINDOWS + 2));
		}
	}

	private static String read(Path file) throws IOException {
		return Files.readString(file, StandardCharsets.UTF_8);
	}

	/**
	 * The flooding JVM: for each flood named on its command line ("ALGORITHM:batching"), 64 threads on one key for
	 * a few windows, through a Lettuce runner with the starter's timeout, a circuit breaker and a denial cache;
	 * writes a line "granted refused failed" per flood.
	 */
	static final class Flood {

		public static void main(String[] args) throws Exception {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])));
			factory.afterPropertiesSet();
			factory.start();
			StringBuilder counts = new StringBuilder();
			for (String flood : List.of(args).subList(3, args.length)) {
				String[] parts = flood.split(":");
				counts.append(flood(factory, Algorithm.valueOf(parts[0]), Boolean.parseBoolean(parts[1]))).append('\n');
			}
			Files.writeString(Path.of(args[2]), counts);
			factory.destroy();
		}

		private static String flood(LettuceConnectionFactory factory, Algorithm algorithm, boolean batching)
				throws InterruptedException {
			LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofMillis(200), batching);
			runner.start();
			RedisRateLimiter limiter = RedisRateLimiter.builder(algorithm, runner)
				.keyPrefix("flood-" + UUID.randomUUID().toString().substring(0, 8))
				.circuitBreaker(new CircuitBreaker("flood", 5, Duration.ofSeconds(2)))
				.denialCache(new LocalDenialCache(10_000))
				.build();
			RateLimit limit = RateLimit.of(LIMIT, WINDOW);
			// an application is connected and warm before a flood comes: calls until one is answered
			long warmUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (true) {
				try {
					limiter.tryAcquire("warm-up", limit);
					break;
				}
				catch (RateLimiterUnavailableException ex) {
					// each attempt waits out the timeout at most
					if (System.nanoTime() - warmUntil > 0) {
						throw ex;
					}
				}
			}
			LongAdder granted = new LongAdder();
			LongAdder refused = new LongAdder();
			LongAdder failed = new LongAdder();
			long end = System.nanoTime() + WINDOW.toNanos() * WINDOWS;
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				Thread thread = new Thread(() -> {
					while (System.nanoTime() - end < 0) {
						try {
							if (limiter.tryAcquire("hot", limit).allowed()) {
								granted.increment();
							}
							else {
								refused.increment();
							}
						}
						catch (RateLimiterUnavailableException ex) {
							failed.increment();
							if (failed.sum() <= 3) {
								ex.printStackTrace();
							}
						}
					}
				});
				thread.start();
				threads.add(thread);
			}
			for (Thread thread : threads) {
				thread.join();
			}
			runner.stop();
			return granted.sum() + " " + refused.sum() + " " + failed.sum();
		}

	}

}

package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
 * timeouts, open the circuit breaker, or (with {@code fail-open}) let the flood through. The flood runs
 * in a JVM of its own, started and stopped by this test; it counts failures, not time.
 */
class FloodOnOneCpuTests {

	private static final int THREADS = 64;

	private static final int SECONDS = 4;

	@ParameterizedTest(name = "{0}, batching {1}")
	@CsvSource({ "FIXED_WINDOW, false", "TOKEN_BUCKET, false", "GCRA, false", "FIXED_WINDOW, true",
			"TOKEN_BUCKET, true", "GCRA, true" })
	void noDecisionFailsUnderAFloodOnOneCpu(Algorithm algorithm, boolean batching) throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		Path output = Files.createTempFile("flood", ".txt");
		Path log = Files.createTempFile("flood", ".log");
		List<String> command = new ArrayList<>(List.of("taskset", "-c", "0",
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:ActiveProcessorCount=1",
				"-Xmx256m", "-cp", System.getProperty("java.class.path"), Flood.class.getName(), redis.host(),
				Integer.toString(redis.port()), algorithm.name(), output.toString(), Boolean.toString(batching)));
		Process flood = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			assertThat(flood.waitFor(SECONDS + 60, TimeUnit.SECONDS)).as("the flood ended").isTrue();
			assertThat(flood.exitValue()).isZero();
		}
		finally {
			flood.destroyForcibly();
		}
		String[] counts = Files.readString(output, StandardCharsets.UTF_8).strip().split(" ");
		Files.delete(output);
		String printed = Files.readString(log, StandardCharsets.UTF_8);
		Files.delete(log);
		long granted = Long.parseLong(counts[0]);
		long refused = Long.parseLong(counts[1]);
		long failed = Long.parseLong(counts[2]);
		assertThat(failed).as("decisions that failed (timeout, open breaker); %s granted, %s refused; the flood printed:%n%s",
				granted, refused, printed)
			.isZero();
		assertThat(refused).isGreaterThan(1_000);
		// 10 per second for SECONDS seconds (and the window open when the flood stops)
		assertThat(granted).isBetween(10L, 10L * (SECONDS + 2));
	}

	/**
	 * The flooding JVM: 64 threads on one key for a few seconds, through a Lettuce runner with the
	 * starter's timeout, a circuit breaker and a denial cache; writes "granted refused failed".
	 */
	static final class Flood {

		public static void main(String[] args) throws Exception {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])));
			factory.afterPropertiesSet();
			factory.start();
			LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofMillis(200),
					Boolean.parseBoolean(args[4]));
			runner.start();
			RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.valueOf(args[2]), runner)
				.keyPrefix("flood-" + UUID.randomUUID().toString().substring(0, 8))
				.circuitBreaker(new CircuitBreaker("flood", 5, Duration.ofSeconds(2)))
				.denialCache(new LocalDenialCache(10_000))
				.build();
			RateLimit limit = RateLimit.of(10, Duration.ofSeconds(1));
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
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
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
			Files.writeString(Path.of(args[3]), granted.sum() + " " + refused.sum() + " " + failed.sum());
			runner.stop();
			factory.destroy();
		}

	}

}

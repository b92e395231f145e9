package dev.ratelimit.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.google.gson.JsonParser;

/**
 * The measurements that are not JMH benchmarks: the physical limit of the server (raw pipelined
 * {@code EVALSHA}, and Lettuce's asynchronous API with as many commands in flight), our limiters'
 * asynchronous API from one thread, the hot key with and without the local denial cache, Redis memory
 * per key, and the HTTP scenario against the servlet and the WebFlux sample applications. Each runs
 * against a fresh redis-server and writes its results as JSON.
 */
public final class Measurements {

	/** The concurrencies of every table: threads, or commands in flight. */
	static final int[] CONCURRENCY = { 1, 8, 64 };

	/** Our O(1) scripts, whose physical limit is measured. */
	static final List<String> PHYSICAL_SCRIPTS = List.of("fixed-window", "sliding-window-counter", "token-bucket", "gcra");

	/** Whether to measure briefly, to try the whole run out: {@code -Dbench.quick=true}. */
	static final boolean QUICK = Boolean.getBoolean("bench.quick");

	/** The parts {@code -Dbench.only} can choose, in the order they run. */
	private static final String[] PARTS = { "physical", "async", "hot-key", "memory", "http", "http-webflux" };

	private final Duration round;

	private final int rounds;

	private Measurements(Duration round, int rounds) {
		this.round = round;
		this.rounds = rounds;
	}

	/**
	 * Runs every measurement; arguments {@code <output directory> <sample-app jar> [<WebFlux sample jar>]}.
	 * The WebFlux scenario is skipped, with a line that says so, when its jar is not given or not built.
	 * {@code -Dbench.only=async,http-webflux} (any of {@code physical}, {@code async}, {@code hot-key},
	 * {@code memory}, {@code http}, {@code http-webflux}) measures only those parts again and keeps the
	 * others' results from the output directory's {@code measurements.json}.
	 * @param args the arguments
	 * @throws Exception when a measurement fails
	 */
	public static void main(String[] args) throws Exception {
		Path out = Path.of(args[0]);
		Path sampleJar = Path.of(args[1]);
		Path webfluxJar = (args.length > 2) ? Path.of(args[2]) : null;
		Measurements measurements = QUICK ? new Measurements(Duration.ofMillis(500), 2)
				: new Measurements(Duration.ofSeconds(2), 5);
		System.setProperty("bench.out", out.toString());
		String only = System.getProperty("bench.only", "");
		Set<String> parts = only.isEmpty() ? Set.of(PARTS) : Set.of(only.split(","));
		if (!Set.of(PARTS).containsAll(parts)) {
			throw new IllegalArgumentException("bench.only takes " + String.join(", ", PARTS) + ", not " + only);
		}
		Map<String, Object> results = new LinkedHashMap<>();
		Path previous = out.resolve("measurements.json");
		if (!only.isEmpty() && Files.exists(previous)) {
			JsonParser.parseString(Files.readString(previous)).getAsJsonObject().entrySet()
				.forEach((entry) -> results.put(entry.getKey(), entry.getValue()));
		}
		if (parts.contains("physical")) {
			try (BenchmarkRedis redis = BenchmarkRedis.start()) {
				results.put("redisVersion", redis.version());
				log("physical limit: raw pipelined EVALSHA");
				results.put("physicalLimit", measurements.physical().rawPipeline(redis));
				log("Lettuce asynchronous EVALSHA");
				results.put("lettuceAsync", measurements.physical().lettuceAsync(redis));
			}
		}
		if (parts.contains("async")) {
			log("our limiters' asynchronous API, one thread, decisions in flight");
			results.put("limiterAsync", new AsyncScenario(measurements.round, measurements.rounds).run());
		}
		if (parts.contains("hot-key")) {
			try (BenchmarkRedis redis = BenchmarkRedis.start()) {
				log("hot key");
				results.put("hotKey", HotKeyScenario.run(redis));
			}
		}
		if (parts.contains("memory")) {
			try (BenchmarkRedis redis = BenchmarkRedis.start()) {
				log("memory per key");
				results.put("memory", MemoryScenario.run(redis));
			}
		}
		if (parts.contains("http")) {
			try (BenchmarkRedis redis = BenchmarkRedis.start()) {
				log("HTTP, servlet sample");
				results.put("http", new HttpScenario(redis, SampleApplication.servlet(sampleJar), out).run());
			}
		}
		if (parts.contains("http-webflux")) {
			if (webfluxJar != null && Files.isRegularFile(webfluxJar)) {
				try (BenchmarkRedis redis = BenchmarkRedis.start()) {
					log("HTTP, WebFlux sample");
					results.put("httpWebflux",
							new HttpScenario(redis, SampleApplication.webflux(webfluxJar), out).run());
				}
			}
			else {
				String reason = (webfluxJar != null) ? "no WebFlux sample jar at " + webfluxJar + " (module not built)"
						: "no WebFlux sample jar given";
				log("HTTP, WebFlux sample: skipped, " + reason);
				results.put("httpWebflux", row("skipped", reason));
			}
		}
		RateLimiterBenchmarks.write(results, "measurements.json");
	}

	private PhysicalLimit physical() {
		return new PhysicalLimit(this.round, this.rounds);
	}

	static void log(String message) {
		System.out.println("[measurements] " + message);
	}

	static Map<String, Object> row(Object... pairs) {
		Map<String, Object> row = new LinkedHashMap<>();
		for (int i = 0; i < pairs.length; i += 2) {
			row.put((String) pairs[i], pairs[i + 1]);
		}
		return row;
	}

}

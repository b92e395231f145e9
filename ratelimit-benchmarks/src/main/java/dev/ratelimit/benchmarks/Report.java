package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.jspecify.annotations.Nullable;

/**
 * Writes {@code BENCHMARKS.md} and its chart from the JMH results and the other measurements of one
 * run; arguments {@code <results directory> <repository root> <run seconds so far>}.
 */
public final class Report {

	private static final int[] THREADS = Measurements.CONCURRENCY;

	private static final List<String> O1 = List.of("fixed-window", "sliding-window-counter", "token-bucket", "gcra");

	private static final Map<String, String> LABELS = new LinkedHashMap<>();

	/** The least share of the physical limit the asynchronous API should reach at 64 in flight. */
	private static final double ASYNC_TARGET = 0.9;

	/** The {@code EVALSHA} per decision in a steady-state table's commands column. */
	private static final Pattern EVALSHA_PER_DECISION = Pattern.compile("([\\d.]+) EVALSHA");

	/** Bytes by which a key's memory may differ between limits: the counts are stored as digits. */
	private static final long MEMORY_TOLERANCE = 16;

	static {
		LABELS.put("fixed-window", "ours: fixed window");
		LABELS.put("sliding-window-log", "ours: sliding window log");
		LABELS.put("sliding-window-counter", "ours: sliding window counter");
		LABELS.put("token-bucket", "ours: token bucket");
		LABELS.put("gcra", "ours: GCRA");
		LABELS.put("seed-fixed-window", "seed: fixed window");
		LABELS.put("seed-sliding-window-log", "seed: sliding window log");
		LABELS.put("bucket4j", "Bucket4j 8.19 (Lettuce, CAS)");
		LABELS.put("redisson", "Redisson 4.7 RRateLimiter");
		LABELS.put(Contenders.LETTUCE_EVALSHA, "no limiter: Lettuce EVALSHA, fixed-window script");
	}

	private final Path results;

	private final Map<String, Result> byKey = new LinkedHashMap<>();

	private final JsonObject measurements;

	private @Nullable JsonObject jmhSettings;

	private Report(Path results) throws IOException {
		this.results = results;
		try (DirectoryStream<Path> files = Files.newDirectoryStream(results, "jmh-*.json")) {
			for (Path file : files) {
				for (JsonElement element : JsonParser.parseString(Files.readString(file)).getAsJsonArray()) {
					JsonObject run = element.getAsJsonObject();
					if (this.jmhSettings == null || file.getFileName().toString().equals("jmh-t1.json")) {
						this.jmhSettings = run;
					}
					Result result = Result.of(run, results);
					this.byKey.put(result.key(), result);
				}
			}
		}
		this.measurements = JsonParser.parseString(Files.readString(results.resolve("measurements.json"))).getAsJsonObject();
	}

	/**
	 * Writes the report.
	 * @param args results directory, repository root, seconds the run took so far
	 * @throws IOException when a file cannot be read or written
	 */
	public static void main(String[] args) throws IOException {
		Path results = Path.of(args[0]);
		Path root = Path.of(args[1]);
		long seconds = Long.parseLong(args[2]);
		Report report = new Report(results);
		Path chart = root.resolve("docs/benchmarks.png");
		Files.createDirectories(chart.getParent());
		Chart.write(report.chartSeries(), chart);
		Files.writeString(root.resolve("BENCHMARKS.md"), report.markdown(seconds));
		System.out.println("Wrote " + root.resolve("BENCHMARKS.md") + " and " + chart);
	}

	private @Nullable Result result(String system, int keys, int threads) {
		return this.byKey.get(system + "|" + keys + "|" + threads);
	}

	private Stats throughput(String system, int threads) {
		Result result = result(system, 10_000, threads);
		return (result != null) ? result.throughput() : Stats.of(List.of());
	}

	private Stats physical(String script, int depth) {
		return series("physicalLimit", script, depth);
	}

	private Stats series(String name, String script, int depth) {
		if (!this.measurements.has(name)) {
			return Stats.of(List.of());
		}
		for (JsonElement element : this.measurements.getAsJsonArray(name)) {
			JsonObject row = element.getAsJsonObject();
			if (row.get("script").getAsString().equals(script) && row.get("depth").getAsInt() == depth) {
				return Stats.of(numbers(row.getAsJsonArray("perSecond")));
			}
		}
		return Stats.of(List.of());
	}

	/** Returns our limiter's asynchronous API from one thread at {@code depth} in flight. */
	private Stats async(String system, int depth) {
		JsonObject row = asyncRow(system, depth);
		return (row != null) ? Stats.of(numbers(row.getAsJsonArray("perSecond"))) : Stats.of(List.of());
	}

	private @Nullable JsonObject asyncRow(String system, int depth) {
		if (!this.measurements.has("limiterAsync")) {
			return null;
		}
		for (JsonElement element : this.measurements.getAsJsonArray("limiterAsync")) {
			JsonObject row = element.getAsJsonObject();
			if (row.get("system").getAsString().equals(system) && row.get("depth").getAsInt() == depth) {
				return row;
			}
		}
		return null;
	}

	private static String asyncLabel(String system) {
		return LABELS.get(system).replace("ours: ", "ours async, one thread: ");
	}

	private @Nullable JsonObject physicalRow(String script, int depth) {
		for (JsonElement element : this.measurements.getAsJsonArray("physicalLimit")) {
			JsonObject row = element.getAsJsonObject();
			if (row.get("script").getAsString().equals(script) && row.get("depth").getAsInt() == depth) {
				return row;
			}
		}
		return null;
	}

	private Map<String, Map<Integer, Stats>> chartSeries() {
		Map<String, Map<Integer, Stats>> series = new LinkedHashMap<>();
		for (String system : LABELS.keySet()) {
			Map<Integer, Stats> byThreads = new LinkedHashMap<>();
			for (int threads : THREADS) {
				byThreads.put(threads, throughput(system, threads));
			}
			series.put(LABELS.get(system).replace("no limiter: Lettuce EVALSHA, fixed-window script", "no limiter: Lettuce EVALSHA")
				.replace(" (Lettuce, CAS)", "").replace(" RRateLimiter", ""), byThreads);
		}
		for (String system : Contenders.OURS) {
			Map<Integer, Stats> byDepth = new LinkedHashMap<>();
			for (int depth : THREADS) {
				byDepth.put(depth, async(system, depth));
			}
			if (byDepth.values().stream().anyMatch((stats) -> stats.count() > 0)) {
				series.put(LABELS.get(system).replace("ours: ", "async: "), byDepth);
			}
		}
		for (String script : Measurements.PHYSICAL_SCRIPTS) {
			Map<Integer, Stats> byDepth = new LinkedHashMap<>();
			for (int depth : THREADS) {
				byDepth.put(depth, physical(script, depth));
			}
			series.put("physical: " + script, byDepth);
		}
		return series;
	}

	private String markdown(long seconds) {
		StringBuilder md = new StringBuilder();
		JsonObject settings = this.jmhSettings;
		md.append("# Benchmarks\n\n");
		md.append("How fast the limiters decide against a real Redis, side by side with what users would pick instead, ")
			.append("and how close they come to what the Redis server itself can execute. Everything here comes from one ")
			.append("command, `ratelimit-benchmarks/run.sh`, run on ").append(LocalDate.now()).append(" in ")
			.append(Math.round(seconds / 60.0)).append(" minutes; the chart is [docs/benchmarks.png](docs/benchmarks.png).\n\n");
		md.append("![Decisions per second per system and thread count](docs/benchmarks.png)\n\n");
		targets(md);
		method(md, settings);
		throughputTables(md);
		ratios(md);
		whereTheTimeGoes(md);
		asyncApi(md);
		bounds(md);
		steadyState(md);
		hotKey(md);
		keyCount(md);
		memory(md);
		http(md, "http", "HTTP: latency the interceptor adds", "the interceptor",
				"The servlet sample app (`java -jar sample-app/target/sample-app-0.1.0-SNAPSHOT.jar`, its own JVM, "
						+ "Tomcat, the starter's defaults)");
		http(md, "httpWebflux", "HTTP: latency the WebFlux filter adds", "the WebFlux filter",
				"The WebFlux sample app (`java -jar sample-webflux/target/sample-webflux-0.1.0-SNAPSHOT.jar`, its "
						+ "own JVM, Reactor Netty, the starter's defaults, the rules in `RateLimitWebFilter`, decisions "
						+ "through `tryAcquireAsync`; its tenant rule keyed by the `X-Api-Key` header by a property, as "
						+ "the servlet sample's partner rule is)");
		md.append("## Reproduce\n\n```\nratelimit-benchmarks/run.sh\n```\n\n")
			.append("It builds the module with `./mvnw -B -Pbenchmarks -pl ratelimit-benchmarks,sample-app,sample-webflux -am package -DskipTests`, ")
			.append("runs the JMH uber-jar `ratelimit-benchmarks/target/benchmarks.jar` once per thread count with JSON output, ")
			.append("then `dev.ratelimit.benchmarks.Measurements` (physical limit, the asynchronous API, hot key, memory, ")
			.append("HTTP against the servlet and the WebFlux sample; the WebFlux scenario is skipped, and says so, ")
			.append("when that sample is not built) and ")
			.append("`dev.ratelimit.benchmarks.Report`, which writes this file and the chart. Raw results stay in ")
			.append("`ratelimit-benchmarks/target/bench/`. The module is built only with the `benchmarks` profile, so ")
			.append("`./mvnw -B verify` neither builds it nor downloads JMH, Bucket4j or Redisson. Single benchmarks: ")
			.append("`java -jar ratelimit-benchmarks/target/benchmarks.jar RateLimiterBenchmarks -p system=gcra -t 8`; ")
			.append("add `-prof stack` to see where the threads spend their time. What each script costs Redis alone ")
			.append("(µs and CPU per decision, the commands it runs; ours and the seed's, 10,000 keys, allowed path, ")
			.append("pipelined so that the client costs the server next to nothing): ")
			.append("`java -cp ratelimit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.ScriptCost`, in about ")
			.append("two minutes; `-Dcompare=<directory>` adds the scripts of a directory (an earlier commit's, say) ")
			.append("side by side, and `-Dinstructions=true` counts Redis's instructions under Valgrind instead, which ")
			.append("load from elsewhere on the machine cannot move. One part of the measurements again, into the ")
			.append("results of an earlier run (then `Report` as above): `java -Dbench.only=async,http-webflux -cp ")
			.append("ratelimit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.Measurements ")
			.append("ratelimit-benchmarks/target/bench sample-app/target/sample-app-0.1.0-SNAPSHOT.jar ")
			.append("sample-webflux/target/sample-webflux-0.1.0-SNAPSHOT.jar` (parts: physical, async, hot-key, ")
			.append("memory, http, http-webflux). The steady state alone, into the results of an earlier run: ")
			.append("`ratelimit-benchmarks/steady-state.sh -Dthreads=8,64 -Dsteady.out=ratelimit-benchmarks/target/bench/steady-state.md` ")
			.append("(about a minute per system and thread count, on a quiet machine; `run.sh` runs it with a 30 s ")
			.append("warm-up and 15 s measured, `STEADY=0` leaves it out).\n");
		return md.toString();
	}

	private void targets(StringBuilder md) {
		md.append("## Targets\n\n");
		md.append("| Target | Measured | Met |\n|---|---|---|\n");
		// allowed-path throughput at 64 threads
		List<String> physicalParts = new ArrayList<>();
		List<String> bucket4jParts = new ArrayList<>();
		List<String> redissonParts = new ArrayList<>();
		boolean physicalMet = true;
		boolean bucket4jMet = true;
		boolean redissonMet = true;
		for (String system : O1) {
			double ours = throughput(system, 64).median();
			double physical = physicalFor(system, 64).median();
			double bucket4j = throughput("bucket4j", 64).median();
			double redisson = throughput("redisson", 64).median();
			physicalMet &= ours / physical >= 0.8;
			bucket4jMet &= ours / bucket4j >= 2;
			redissonMet &= ours / redisson >= 1.5;
			physicalParts.add(abbreviated(system) + " " + ratio(ours / physical));
			bucket4jParts.add(abbreviated(system) + " " + ratio(ours / bucket4j));
			redissonParts.add(abbreviated(system) + " " + ratio(ours / redisson));
		}
		md.append("| O(1) algorithms at 64 threads ≥ 0.8 × the physical limit at 64 in flight | ")
			.append(String.join(", ", physicalParts)).append(" | ").append(yes(physicalMet)).append(" |\n");
		md.append("| … ≥ 2 × Bucket4j | ").append(String.join(", ", bucket4jParts)).append(" | ")
			.append(yes(bucket4jMet)).append(" |\n");
		md.append("| … ≥ 1.5 × Redisson | ").append(String.join(", ", redissonParts)).append(" | ")
			.append(yes(redissonMet)).append(" |\n");
		// the asynchronous API, one thread
		List<String> asyncParts = new ArrayList<>();
		boolean asyncMet = true;
		boolean asyncMeasured = false;
		for (String system : O1) {
			double ratio = async(system, 64).median() / physicalFor(system, 64).median();
			JsonObject row = asyncRow(system, 64);
			long errors = (row != null) ? row.get("errors").getAsLong() : 0;
			asyncMeasured |= !Double.isNaN(ratio);
			asyncMet &= ratio >= ASYNC_TARGET && errors == 0;
			asyncParts.add(abbreviated(system) + " " + ratio(ratio) + ((errors > 0) ? " (" + number(errors) + " errors)" : ""));
		}
		md.append("| O(1) algorithms through the async API (`tryAcquireAsync`), one thread, 64 decisions in flight ≥ ")
			.append(ASYNC_TARGET).append(" × the physical limit of the same script at 64 in flight | ")
			.append(asyncMeasured ? String.join(", ", asyncParts) : "not measured").append(" | ")
			.append(asyncMeasured ? yes(asyncMet) : "–").append(" |\n");
		// hot key
		List<String> hotParts = new ArrayList<>();
		boolean hotMet = true;
		for (int threads : new int[] { 8, 64 }) {
			double without = hotKeyRejections(false, threads).median();
			double with = hotKeyRejections(true, threads).median();
			hotMet &= with / without >= 20;
			hotParts.add(threads + " threads: " + ratio(with / without));
		}
		md.append("| Hot key: rejections/s with the local cache ≥ 20 × without | ").append(String.join(", ", hotParts))
			.append(" | ").append(yes(hotMet)).append(" |\n");
		List<String> callParts = new ArrayList<>();
		boolean callsMet = true;
		for (JsonElement element : this.measurements.getAsJsonObject("hotKey").getAsJsonArray("perSecond")) {
			JsonObject run = element.getAsJsonObject();
			double periods = run.get("roundSeconds").getAsDouble();
			double rejectedCalls = numbers(run.getAsJsonArray("rejectedCallsToRedis")).get(0).doubleValue();
			callsMet &= rejectedCalls / periods <= 1.0;
			callParts.add(run.get("threads").getAsInt() + " threads: " + decimal(rejectedCalls / periods));
		}
		md.append("| Hot key: Redis calls refused per retry period ≤ 1 per instance (limit 10/s, cache on) | ")
			.append(String.join(", ", callParts)).append(" | ").append(yes(callsMet)).append(" |\n");
		httpTarget(md, "http", "the interceptor");
		httpTarget(md, "httpWebflux", "the WebFlux filter");
		// keys
		List<String> keyParts = new ArrayList<>();
		boolean flat = true;
		for (String system : keyCountSystems()) {
			Result small = result(system, 1000, 64);
			Result large = result(system, 1_000_000, 64);
			if (small != null && large != null) {
				double change = large.throughput().median() / small.throughput().median();
				flat &= change >= 0.8;
				keyParts.add(abbreviated(system) + " " + ratio(change));
			}
		}
		md.append("| Throughput flat from 1,000 to 1,000,000 keys (1M ÷ 1k within noise, ≥ 0.8) | ")
			.append(String.join(", ", keyParts)).append(" | ").append(yes(flat)).append(" |\n");
		boolean constant = true;
		List<String> memoryParts = new ArrayList<>();
		for (String system : O1) {
			long small = memoryBytes(system, 10);
			long mid = memoryBytes(system, 1000);
			long large = memoryBytes(system, 1_000_000);
			long spread = Math.max(small, Math.max(mid, large)) - Math.min(small, Math.min(mid, large));
			constant &= small > 0 && spread <= MEMORY_TOLERANCE;
			memoryParts.add(abbreviated(system) + " " + small + " / " + mid + " / " + large + " B");
		}
		md.append("| O(1) memory per key constant at limits 10 / 1,000 / 1,000,000 (within ")
			.append(MEMORY_TOLERANCE).append(" B: the stored numbers' digits) | ").append(String.join(", ", memoryParts))
			.append(" | ").append(yes(constant)).append(" |\n\n");
	}

	private void httpTarget(StringBuilder md, String name, String what) {
		md.append("| HTTP: p99 added by ").append(what).append(" < 1 ms at a moderate load | ");
		JsonObject http = this.measurements.has(name) ? this.measurements.getAsJsonObject(name) : null;
		if (http == null || !http.has("pooled")) {
			md.append("not measured").append((http != null && http.has("skipped")) ? ": " + http.get("skipped").getAsString() : "")
				.append(" | – |\n");
			return;
		}
		JsonObject pooled = http.getAsJsonObject("pooled");
		double addedP99 = pooled.get("ruleP99").getAsDouble() - pooled.get("noRuleP99").getAsDouble();
		md.append(Report.millis(addedP99)).append(" ms (p99 ").append(Report.millis(pooled.get("ruleP99").getAsDouble()))
			.append(" ms with the rule, ").append(Report.millis(pooled.get("noRuleP99").getAsDouble()))
			.append(" ms without; all rounds pooled) | ").append(yes(addedP99 < 1.0)).append(" |\n");
	}

	/** The version in a library's jar manifest, or "?" where it has none. */
	private static String versionOf(Class<?> type) {
		String version = type.getPackage().getImplementationVersion();
		return (version != null) ? version : "?";
	}

	private void method(StringBuilder md, @Nullable JsonObject settings) {
		md.append("## Method\n\n");
		md.append("- **Machine**: ").append(Machine.describe()).append(". Load average when the run started: ")
			.append(System.getProperty("bench.loadBefore", "?")).append("; when the report was written: ")
			.append(Machine.loadAverage()).append(" (other processes on the machine add noise).\n");
		md.append("- **Cores used, pinning**: none pinned; redis-server (single-threaded), the benchmark JVM and, in the ")
			.append("HTTP scenario, the sample app share both cores, so a client that burns CPU takes it from Redis. ")
			.append("Each table gives the Redis and client CPU shares where they matter.\n");
		md.append("- **Software**: Java ").append(System.getProperty("java.version")).append(" (")
			.append(System.getProperty("java.vm.name")).append("), Redis ")
			.append(this.measurements.get("redisVersion").getAsString())
			.append(" (redis-server started by the benchmark on 127.0.0.1 with persistence off, one per trial), ")
			.append("Lettuce ").append(versionOf(io.lettuce.core.RedisClient.class))
			.append(" through Spring Data Redis ")
			.append(versionOf(org.springframework.data.redis.core.StringRedisTemplate.class))
			.append(", Bucket4j 8.19.0, Redisson 4.7.0, JMH 1.37.\n");
		if (settings != null) {
			md.append("- **JMH**: mode sample time; ").append(settings.get("forks").getAsInt()).append(" fork, ")
				.append(settings.get("warmupIterations").getAsInt()).append(" warm-up iterations of ")
				.append(settings.get("warmupTime").getAsString()).append(", ")
				.append(settings.get("measurementIterations").getAsInt()).append(" measurement iterations of ")
				.append(settings.get("measurementTime").getAsString()).append(", at 1, 8 and 64 threads; a fresh ")
				.append("redis-server per trial. Throughput is the decisions counted in each measurement iteration ")
				.append("divided by its length; tables give the **median of the iterations** and, in small type, ")
				.append("their min–max. Latency percentiles are JMH's, over every sampled decision of the trial.\n");
		}
		md.append("- **Workload**: keys `user-0` … `user-9999` chosen at random per decision (every key exists before ")
			.append("measuring), one permit per decision, a limit of 1,000,000 per hour that is never reached (the ")
			.append("allowed path), Redis time. Ours run as the starter configures them: `LettuceScriptRunner` with ")
			.append("a 200 ms timeout on a `LettuceConnectionFactory` (one shared connection), a `CircuitBreaker` ")
			.append("(5 failures, 2 s) and a `LocalDenialCache(10_000)`, without batching (the steady state below ")
			.append("compares batching on and off); a decision that times out would count in ")
			.append("the errors column. The seed's two classes are copied from the article unchanged (package aside) ")
			.append("and run over a `StringRedisTemplate`. Bucket4j: `Bucket4jLettuce.casBasedBuilder` on one ")
			.append("Lettuce connection, capacity 1,000,000 refilled greedily per hour, proxies built once per key. ")
			.append("Redisson: default single-server config, `RRateLimiter` per key with `trySetRate(OVERALL, ")
			.append("1,000,000, 1h)` once, then `tryAcquire()`.\n");
		md.append("- **Physical limit**: exactly the script and arguments our limiter sends (captured from the ")
			.append("limiter itself), driven over one raw socket the way `redis-benchmark` pipelines: pre-encoded ")
			.append("`EVALSHA` commands, a writer that keeps 1, 8 or 64 of them in flight and flushes whenever all ")
			.append("slots are taken, a reader that takes the replies; 2-second rounds (").append(roundsOf("physicalLimit"))
			.append(" after one warm-up round). With 1 in flight it is one round trip at a time, so it measures ")
			.append("loopback latency more than the server, and on this VM it is bimodal (the scheduler puts the ")
			.append("client and Redis on one core or on two). `redis-benchmark` itself is not installed here. For ")
			.append("comparison, the fixed-window script through Lettuce's asynchronous API from one thread with as ")
			.append("many commands in flight.\n");
		md.append("- **Asynchronous API**: our limiters as configured above, each against a fresh redis-server with ")
			.append("the same 10,000 pre-filled keys and the allowed path, called through `tryAcquireAsync(key, limit)` ")
			.append("from one thread that keeps 1, 8 or 64 decisions in flight: it takes one of as many slots (a ")
			.append("semaphore) before each call, and the future's callback, which runs on Lettuce's I/O thread, gives ")
			.append("it back (`AsyncScenario`). One warm-up round, then ").append(roundsOf("limiterAsync"))
			.append(" rounds of ").append(asyncRoundSeconds()).append(" s per concurrency; latency from the call to ")
			.append("its callback. Compared with the physical ")
			.append("limit of the same script at as many commands in flight, with the fixed-window script through ")
			.append("Lettuce's asynchronous API (no limiter code), and with the same limiter's blocking API at as many ")
			.append("threads.\n\n");
	}

	private String asyncRoundSeconds() {
		JsonObject row = asyncRow("fixed-window", 64);
		return (row != null && row.has("roundSeconds")) ? Report.millis(row.get("roundSeconds").getAsDouble())
			.replaceAll("\\.?0+$", "") : "?";
	}

	private String roundsOf(String name) {
		JsonArray rows = this.measurements.has(name) ? this.measurements.getAsJsonArray(name) : new JsonArray();
		return (rows.size() > 0) ? Integer.toString(rows.get(0).getAsJsonObject().getAsJsonArray("perSecond").size()) : "?";
	}

	private void throughputTables(StringBuilder md) {
		md.append("## Allowed path: decisions per second, 10,000 keys\n\n");
		md.append("| System | 1 thread | 8 threads | 64 threads | errors / rejections |\n|---|---:|---:|---:|---:|\n");
		for (String system : LABELS.keySet()) {
			md.append("| ").append(LABELS.get(system));
			long errors = 0;
			long rejections = 0;
			for (int threads : THREADS) {
				md.append(" | ").append(throughput(system, threads).rateWithRange());
				Result result = result(system, 10_000, threads);
				if (result != null && result.trial() != null) {
					errors += result.trial().get("errors").getAsLong();
					rejections += result.trial().get("rejections").getAsLong();
				}
			}
			md.append(" | ").append(errors).append(" / ").append(rejections).append(" |\n");
		}
		for (String script : Measurements.PHYSICAL_SCRIPTS) {
			md.append("| **physical limit: ").append(script).append(" script, raw pipeline** (in flight: 1 / 8 / 64)");
			for (int depth : THREADS) {
				md.append(" | ").append(physical(script, depth).rateWithRange());
			}
			md.append(" | |\n");
		}
		md.append("| Lettuce async, fixed-window script, no limiter code (in flight: 1 / 8 / 64)");
		for (int depth : THREADS) {
			md.append(" | ").append(series("lettuceAsync", "fixed-window", depth).rateWithRange());
		}
		md.append(" | |\n");
		for (String system : Contenders.OURS) {
			if (asyncRow(system, 64) == null) {
				continue;
			}
			md.append("| ").append(asyncLabel(system)).append(" (in flight: 1 / 8 / 64)");
			long errors = 0;
			long rejections = 0;
			for (int depth : THREADS) {
				md.append(" | ").append(async(system, depth).rateWithRange());
				JsonObject row = asyncRow(system, depth);
				if (row != null) {
					errors += row.get("errors").getAsLong();
					rejections += row.get("rejections").getAsLong();
				}
			}
			md.append(" | ").append(errors).append(" / ").append(rejections).append(" |\n");
		}
		md.append("\n");
		md.append("### Latency per decision (p50 / p99 / p99.9, ms)\n\n");
		md.append("| System | 1 thread | 8 threads | 64 threads |\n|---|---:|---:|---:|\n");
		for (String system : LABELS.keySet()) {
			md.append("| ").append(LABELS.get(system));
			for (int threads : THREADS) {
				Result result = result(system, 10_000, threads);
				md.append(" | ").append((result != null) ? Report.millis(result.p50() / 1000) + " / "
						+ Report.millis(result.p99() / 1000) + " / " + Report.millis(result.p999() / 1000) : "–");
			}
			md.append(" |\n");
		}
		for (String system : Contenders.OURS) {
			if (asyncRow(system, 64) == null) {
				continue;
			}
			md.append("| ").append(asyncLabel(system)).append(" (in flight: 1 / 8 / 64)");
			for (int depth : THREADS) {
				md.append(" | ").append(asyncLatencies(asyncRow(system, depth)));
			}
			md.append(" |\n");
		}
		md.append("\n");
	}

	private static String asyncLatencies(@Nullable JsonObject row) {
		if (row == null) {
			return "–";
		}
		return Report.millis(row.get("p50").getAsDouble()) + " / " + Report.millis(row.get("p99").getAsDouble()) + " / "
				+ Report.millis(row.get("p999").getAsDouble());
	}

	private Stats physicalFor(String system, int depth) {
		return physical(Measurements.PHYSICAL_SCRIPTS.contains(system) ? system : "fixed-window", depth);
	}

	private void ratios(StringBuilder md) {
		md.append("## Ratios (medians; 1 / 8 / 64 threads)\n\n");
		md.append("The physical limit of each O(1) algorithm is its own script; the sliding window log is compared ")
			.append("with the fixed-window script. Above 1 means ours is faster.\n\n");
		md.append("| Ours | ÷ physical limit | ÷ Bucket4j | ÷ Redisson | ÷ seed fixed window | ÷ seed sliding log | ÷ no limiter (Lettuce EVALSHA) |\n")
			.append("|---|---:|---:|---:|---:|---:|---:|\n");
		for (String system : Contenders.OURS) {
			md.append("| ").append(LABELS.get(system));
			md.append(" | ").append(ratios(system, (threads) -> physicalFor(system, threads).median()));
			for (String peer : List.of("bucket4j", "redisson", "seed-fixed-window", "seed-sliding-window-log",
					Contenders.LETTUCE_EVALSHA)) {
				md.append(" | ").append(ratios(system, (threads) -> throughput(peer, threads).median()));
			}
			md.append(" |\n");
		}
		md.append("\n");
	}

	private String ratios(String system, Function<Integer, Double> denominator) {
		List<String> parts = new ArrayList<>();
		for (int threads : THREADS) {
			parts.add(ratio(throughput(system, threads).median() / denominator.apply(threads)));
		}
		return String.join(" / ", parts);
	}

	private void whereTheTimeGoes(StringBuilder md) {
		md.append("## Where the time goes (64 threads)\n\n");
		md.append("Redis commands per decision and the server's own time per decision come from `INFO commandstats` ")
			.append("over the measurement iterations; CPU shares are CPU-seconds per second (1.0 = one core of the ")
			.append("two). Redis executes scripts on one thread, so its CPU share near 1.0 means Redis is the bottleneck; ")
			.append("below that, the client is.\n\n");
		md.append("| System | Redis commands per decision | Redis µs per decision | Redis CPU | benchmark JVM CPU |\n")
			.append("|---|---|---:|---:|---:|\n");
		for (String system : LABELS.keySet()) {
			Result result = result(system, 10_000, 64);
			if (result == null || result.trial() == null) {
				continue;
			}
			JsonObject trial = result.trial();
			double decisions = trial.get("decisions").getAsDouble();
			List<String> commands = new ArrayList<>();
			for (Map.Entry<String, JsonElement> entry : trial.getAsJsonObject("redisCommands").entrySet()) {
				double perDecision = entry.getValue().getAsDouble() / decisions;
				if (perDecision >= 0.01) {
					commands.add(decimal(perDecision) + " " + entry.getKey().toUpperCase(Locale.ROOT));
				}
			}
			md.append("| ").append(LABELS.get(system)).append(" | ").append(String.join(", ", commands)).append(" | ")
				.append(decimal(trial.get("redisUsecPerDecision").getAsDouble())).append(" | ")
				.append(decimal(trial.get("redisCpuShare").getAsDouble())).append(" | ")
				.append(decimal(trial.get("jvmCpuShare").getAsDouble())).append(" |\n");
		}
		for (String script : Measurements.PHYSICAL_SCRIPTS) {
			JsonObject row = physicalRow(script, 64);
			if (row != null) {
				md.append("| physical limit: ").append(script).append(", 64 in flight | 1 EVALSHA | ")
					.append(decimal(row.get("redisUsecPerCall").getAsDouble())).append(" | ")
					.append(decimal(row.get("redisCpuShare").getAsDouble())).append(" | – |\n");
			}
		}
		md.append("\n");
	}

	private void asyncApi(StringBuilder md) {
		if (!this.measurements.has("limiterAsync")) {
			return;
		}
		md.append("## Asynchronous API: one thread, 64 decisions in flight\n\n");
		md.append("`tryAcquireAsync` holds no thread while Redis answers, so one thread can keep many decisions in ")
			.append("flight, as a reactive filter does. Each algorithm against the physical limit of its own script at ")
			.append("64 in flight (the sliding window log against the fixed-window script's), against the fixed-window ")
			.append("script through Lettuce's asynchronous API with no limiter code at 64 in flight, and against the ")
			.append("same limiter's blocking API from 64 threads. Only decisions Redis answered count, in the rates ")
			.append("and in the latencies (from the call to the future's callback); calls that timed out or met an ")
			.append("open circuit breaker are errors, in the errors column of the allowed-path table.\n\n");
		md.append("| Ours, one thread | Decisions per second | ÷ physical limit | ÷ Lettuce async, no limiter code | ")
			.append("÷ blocking API, 64 threads | p50 / p99 / p99.9 (ms) | Redis µs per decision | Redis CPU | benchmark JVM CPU |\n")
			.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		double lettuceAsync = series("lettuceAsync", "fixed-window", 64).median();
		for (String system : Contenders.OURS) {
			JsonObject row = asyncRow(system, 64);
			if (row == null) {
				continue;
			}
			Stats async = async(system, 64);
			md.append("| ").append(LABELS.get(system)).append(" | ").append(async.rateWithRange()).append(" | ")
				.append(ratio(async.median() / physicalFor(system, 64).median())).append(" | ")
				.append(ratio(async.median() / lettuceAsync)).append(" | ")
				.append(ratio(async.median() / throughput(system, 64).median())).append(" | ")
				.append(asyncLatencies(row)).append(" | ").append(decimal(row.get("redisUsecPerDecision").getAsDouble()))
				.append(" | ").append(decimal(row.get("redisCpuShare").getAsDouble())).append(" | ")
				.append(decimal(row.get("jvmCpuShare").getAsDouble())).append(" |\n");
		}
		md.append("\n");
		Stats blocking = overhead("decide", "starter");
		Stats async = overhead("decideAsync", "starter");
		if (!Double.isNaN(async.median())) {
			md.append("The limiter's own work per decision, measured alone with Redis replaced by a runner that ")
				.append("answers at once (`LimiterOverheadBenchmarks`, one thread, fixed window, breaker and denial ")
				.append("cache): ").append(number(async.median())).append(" ns through `tryAcquireAsync`, against ")
				.append(number(blocking.median())).append(" ns through `tryAcquire`. That leaves out what ")
				.append("`LettuceScriptRunner.runAsync` adds per call around Lettuce's own future (a timeout scheduled ")
				.append("on a timer thread and cancelled when Redis answers), and that the limiter's callbacks run on ")
				.append("Lettuce's I/O thread, the one thread that also reads every reply.\n\n");
		}
	}

	private void bounds(StringBuilder md) {
		double physical = physical("fixed-window", 64).median();
		double lettuceAsync = series("lettuceAsync", "fixed-window", 64).median();
		double blocking = throughput(Contenders.LETTUCE_EVALSHA, 64).median();
		double ours = throughput("fixed-window", 64).median();
		double seed = throughput("seed-fixed-window", 64).median();
		Result oursResult = result("fixed-window", 10_000, 64);
		Result seedResult = result("seed-fixed-window", 10_000, 64);
		md.append("## What bounds the allowed path\n\n");
		md.append("The same fixed-window script at 64 concurrent decisions, from the bare server down to our limiter, ")
			.append("asynchronous and blocking:\n\n");
		md.append("| Client | Decisions per second | ÷ physical limit |\n|---|---:|---:|\n");
		md.append("| raw socket, 64 commands kept in flight (physical limit) | ").append(number(physical)).append(" | 1.00× |\n");
		md.append("| Lettuce asynchronous API, one thread, 64 in flight | ").append(number(lettuceAsync)).append(" | ")
			.append(ratio(lettuceAsync / physical)).append(" |\n");
		double oursAsync = async("fixed-window", 64).median();
		if (!Double.isNaN(oursAsync)) {
			md.append("| our `FixedWindowRateLimiter`, `tryAcquireAsync`, one thread, 64 in flight | ")
				.append(number(oursAsync)).append(" | ").append(ratio(oursAsync / physical)).append(" |\n");
		}
		md.append("| Lettuce blocking API, 64 threads, no limiter code | ").append(number(blocking)).append(" | ")
			.append(ratio(blocking / physical)).append(" |\n");
		md.append("| our `FixedWindowRateLimiter`, 64 threads | ").append(number(ours)).append(" | ")
			.append(ratio(ours / physical)).append(" |\n\n");
		JsonObject physicalRow = physicalRow("fixed-window", 64);
		md.append("Each step down is a cost of the client, not of Redis: the script costs Redis the same in every ")
			.append("row (\"Redis µs per decision\" above). Redis CPU: ");
		if (physicalRow != null) {
			md.append(decimal(physicalRow.get("redisCpuShare").getAsDouble())).append(" of a core under the raw client");
		}
		if (oursResult != null && oursResult.trial() != null) {
			md.append(", ").append(decimal(oursResult.trial().get("redisCpuShare").getAsDouble()))
				.append(" under our limiter, with ").append(decimal(oursResult.trial().get("jvmCpuShare").getAsDouble()))
				.append(" cores for the benchmark JVM");
		}
		md.append(". On two cores the client and Redis compete for the same CPUs: 64 threads that each wait for ")
			.append("their own reply cost a park and an unpark per decision plus Netty's event loop, and that CPU is ")
			.append("taken from Redis. A blocking call per decision, which is what an interceptor on a servlet thread ")
			.append("needs, reaches ").append(ratio(blocking / physical)).append(" of the physical limit with no ")
			.append("limiter code at all; our limiter reaches ").append(ratio(ours / blocking))
			.append(" of that (1.00× would mean no cost of its own, within noise). The limiter's own work per ")
			.append("decision is building the Redis key (a regular expression check of the id), the denial-cache ")
			.append("key and lookup, the circuit breaker's bookkeeping, and converting the reply into decisions");
		Stats starter = overhead("starter");
		Stats bare = overhead("bare");
		if (!Double.isNaN(starter.median())) {
			md.append(". Measured alone, with Redis replaced by a runner that answers at once (")
				.append("`LimiterOverheadBenchmarks`, one thread), that work is ").append(number(starter.median()))
				.append(" ns per decision as the starter configures the limiter (breaker and denial cache) and ")
				.append(number(bare.median())).append(" ns without them");
		}
		md.append(".\n\n");
		md.append("The seed's fixed window runs a cheaper script (one `INCR`, sometimes an `EXPIRE`: ");
		if (seedResult != null && seedResult.trial() != null && oursResult != null && oursResult.trial() != null) {
			md.append(decimal(seedResult.trial().get("redisUsecPerDecision").getAsDouble())).append(" µs in Redis per decision ")
				.append("against ").append(decimal(oursResult.trial().get("redisUsecPerDecision").getAsDouble()))
				.append(" µs for ours, which reads the server's `TIME`, a hash, writes it back and sets its expiry");
		}
		md.append("); at ").append(number(seed)).append(" decisions per second it is ").append(ratio(seed / ours))
			.append(" of ours at 64 threads, in exchange for no multi-limit, no headers' data (remaining, reset), ")
			.append("no timeout or fallback, and keys built from raw client input.\n\n");
	}

	private Stats overhead(String configuration) {
		return overhead("decide", configuration);
	}

	private Stats overhead(String method, String configuration) {
		Path file = this.results.resolve("overhead.json");
		try {
			if (Files.exists(file)) {
				for (JsonElement element : JsonParser.parseString(Files.readString(file)).getAsJsonArray()) {
					JsonObject run = element.getAsJsonObject();
					if (run.get("benchmark").getAsString().endsWith("." + method)
							&& run.getAsJsonObject("params").get("configuration").getAsString().equals(configuration)) {
						return Stats.of(run.getAsJsonObject("primaryMetric").get("score").getAsDouble());
					}
				}
			}
		}
		catch (IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		return Stats.of(List.of());
	}

	private Stats hotKeyRejections(boolean cached, int threads) {
		for (JsonElement element : this.measurements.getAsJsonObject("hotKey").getAsJsonArray("perMinute")) {
			JsonObject run = element.getAsJsonObject();
			if (run.get("cache").getAsBoolean() == cached && run.get("threads").getAsInt() == threads) {
				return Stats.of(numbers(run.getAsJsonArray("rejectionsPerSecond")));
			}
		}
		return Stats.of(List.of());
	}

	/**
	 * The steady state with pinned CPUs, when the run measured it ({@code steady-state.md}, written by
	 * {@link SteadyState}).
	 */
	private void steadyState(StringBuilder md) {
		Path tables = this.results.resolve("steady-state.md");
		if (!Files.exists(tables)) {
			return;
		}
		md.append("## Steady state: pinned CPUs, client and Redis CPU per decision\n\n");
		md.append("Each system alone against a redis-server of its own pinned to CPU 1 (`taskset`), the benchmark JVM ")
			.append("pinned to CPU 0, the same 10,000 pre-filled keys and allowed path as above, a warm-up, then a ")
			.append("measurement (`SteadyState`). Client CPU is the benchmark JVM's own (`/proc/self/stat`, user + ")
			.append("system, at the kernel's 10 ms tick), Redis CPU the server's (`INFO cpu`), commands from ")
			.append("`INFO commandstats`; each per decision. Where both sides are pinned, throughput is bound by the ")
			.append("larger of the two CPU costs. Ratios are to plain Lettuce `EVALSHA` of the seed's fixed-window ")
			.append("script with no limiter code (`lettuce-evalsha-seed`, the reference issue 17 set); `lettuce-evalsha` ")
			.append("is the same client sending our fixed-window script, so ours ÷ it is the cost of our limiter code ")
			.append("alone. Our limiters run without batching (`ratelimit.batching.enabled=false`), and again with it ")
			.append("(`+batching`, the starter's default): then decisions made while two calls are ")
			.append("in flight go to Redis together, one `EVALSHA` of the batch script per group, so `EVALSHA` per ")
			.append("decision is the inverse of the mean group size. Latency is that of every 8th decision of the ")
			.append("measurement, timed by the calling thread.\n\n");
		String text;
		try {
			text = Files.readString(tables);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		md.append(text);
		Map<Integer, Map<String, double[]>> byThreads = steadyResults(text);
		if (!byThreads.isEmpty()) {
			steadyStateTargets(md, byThreads);
			steadyStateBounds(md, byThreads);
		}
	}

	/**
	 * What bounds the steady state: each side's share of its pinned CPU, and what one decision costs the
	 * Redis server inside the script ({@code script-cost.md}, written by {@link ScriptCost} under callgrind).
	 */
	private void steadyStateBounds(StringBuilder md, Map<Integer, Map<String, double[]>> byThreads) {
		md.append("### What bounds these figures\n\n");
		md.append("**Throughput.** With each side pinned to a CPU of its own, the side whose CPU is full sets the ")
			.append("throughput: its CPU µs per decision. Share of its CPU each side used (decisions/s × CPU µs per ")
			.append("decision ÷ 10⁶; 1.00 = the whole CPU; below 1.00 on both sides, the calling threads wait on the ")
			.append("round trip):\n\n");
		List<Integer> threadCounts = new ArrayList<>(byThreads.keySet());
		md.append("| system |");
		threadCounts.forEach((threads) -> md.append(" client / Redis, ").append(threads).append(" threads |"));
		md.append("\n|---|");
		threadCounts.forEach((threads) -> md.append("---:|"));
		md.append("\n");
		for (String system : byThreads.get(threadCounts.get(0)).keySet()) {
			md.append("| ").append(system).append(" |");
			for (int threads : threadCounts) {
				double[] values = byThreads.get(threads).get(system);
				md.append((values == null) ? " – |" : String.format(Locale.ROOT, " %.2f / %.2f |", values[0] * values[1] / 1e6,
						values[0] * values[2] / 1e6));
			}
			md.append("\n");
		}
		md.append("\n");
		Path costs = this.results.resolve("script-cost.md");
		if (!Files.exists(costs)) {
			return;
		}
		String text;
		try {
			text = Files.readString(costs);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Map<String, Double> instructions = new LinkedHashMap<>();
		for (String line : text.split("\n")) {
			String[] cells = line.split("\\|");
			if (line.startsWith("| ") && cells.length > 2 && cells[2].strip().matches("[\\d,.]+")) {
				instructions.put(cells[1].strip(), parse(cells[2]));
			}
		}
		md.append("**Redis CPU.** What one decision costs the Redis server inside its script, counted in ")
			.append("instructions under Valgrind's callgrind (`ScriptCost -Dinstructions=true`), which load from ")
			.append("elsewhere on the machine cannot move: each script as our limiter sends it, one decision per ")
			.append("`EVALSHA` and 20 per `EVALSHA` of the batch script, the seed's script, and the fixed window's ")
			.append("three commands with nothing around them (`").append(ScriptCost.FLOOR).append("`). The request ")
			.append("around a script (reading it from the socket, parsing it, writing the reply) is not counted here; ")
			.append("it is counted in the steady state's Redis CPU above.\n\n");
		md.append(text.strip()).append("\n\n");
		Double seed = instructions.get("seed-fixed-window");
		Double fixed = instructions.get("fixed-window");
		Double floor = instructions.get(ScriptCost.FLOOR);
		Double batched = instructions.entrySet().stream().filter((e) -> e.getKey().startsWith("fixed-window (batched"))
			.map(Map.Entry::getValue).findFirst().orElse(null);
		int mostThreads = threadCounts.get(threadCounts.size() - 1);
		double[] seedSteady = byThreads.get(mostThreads).get("seed-fixed-window");
		double[] fixedBatching = byThreads.get(mostThreads).get("fixed-window" + Contenders.BATCHING);
		if (seed != null && fixed != null && floor != null && batched != null && seedSteady != null && fixedBatching != null) {
			md.append(String.format(Locale.ROOT, "Inside Redis our fixed window executes %,.0f instructions per decision "
					+ "(%,.0f when batched) against %,.0f for the seed's script, %.2f×. Its three commands alone take %,.0f "
					+ "(%.2f× the seed's whole script): it reads the count and the TTL that is its clock before it "
					+ "charges, so that a refused call writes nothing and every answer carries the remaining permits and "
					+ "the reset; the seed's `INCR` does neither, and our logic around the commands (several limits, "
					+ "the caller's clock, repairs, the answer) is the remaining %,.0f. In the steady state the seed's "
					+ "script costs Redis %.1f µs of CPU per decision at %d threads, %.1f µs of it inside the script "
					+ "(`INFO commandstats`), the rest the request around it; batching shares that part among the "
					+ "decisions of a batch (%.0f on average there, %.1f µs inside the script per decision), so ours "
					+ "with batching comes to %.2f× the seed's Redis CPU per decision: the floor of that ratio is the "
					+ "scripts' own work, which no client can take away.%n%n", fixed, batched, seed, fixed / seed,
					floor, floor / seed, fixed - floor, seedSteady[2], mostThreads,
					seedSteady[5], fixedBatching[4], fixedBatching[5], fixedBatching[2] / seedSteady[2]));
		}
	}

	/**
	 * Reads the steady state's tables: per thread count, each system's decisions/s, client and Redis CPU
	 * µs, p99 µs, decisions per {@code EVALSHA}, and Redis µs inside scripts (NaN in tables without it).
	 */
	private static Map<Integer, Map<String, double[]>> steadyResults(String tables) {
		Map<Integer, Map<String, double[]>> byThreads = new LinkedHashMap<>();
		Map<String, double[]> current = null;
		for (String line : tables.split("\n")) {
			if (line.matches("\\d+ threads,.*")) {
				current = new LinkedHashMap<>();
				byThreads.put(Integer.parseInt(line.substring(0, line.indexOf(' '))), current);
			}
			else if (current != null && line.startsWith("| ") && !line.startsWith("| system")) {
				String[] cells = line.split("\\|");
				String[] latency = cells[5].split("/");
				Matcher evalsha = EVALSHA_PER_DECISION.matcher(cells[6]);
				double perEvalsha = evalsha.find() ? 1 / Double.parseDouble(evalsha.group(1)) : 1;
				double inScripts = (cells.length > 8) ? parse(cells[8]) : Double.NaN;
				current.put(cells[1].strip(), new double[] { parse(cells[2]), parse(cells[3]), parse(cells[4]),
						parse(latency[1]), perEvalsha, inScripts });
			}
		}
		return byThreads;
	}

	/** The steady state's targets, from its results ({@link #steadyResults(String)}). */
	private static void steadyStateTargets(StringBuilder md, Map<Integer, Map<String, double[]>> byThreads) {
		md.append("Targets of the steady state (each a ratio within one table above; O(1): fixed window, sliding ")
			.append("window counter, token bucket, GCRA; `+b`: with batching):\n\n");
		md.append("| Target | Threads | Measured | Met |\n|---|---:|---|---|\n");
		List<String> o1 = List.of("fixed-window", "sliding-window-counter", "token-bucket", "gcra");
		for (Map.Entry<Integer, Map<String, double[]>> entry : byThreads.entrySet()) {
			int threads = entry.getKey();
			Map<String, double[]> r = entry.getValue();
			double[] seed = r.get("seed-fixed-window");
			// issue 17's reference: the seed's script over plain Lettuce (runs before it had only ours)
			double[] plain = r.getOrDefault(Contenders.LETTUCE_EVALSHA_SEED, r.get(Contenders.LETTUCE_EVALSHA));
			if (seed == null || plain == null) {
				continue;
			}
			steadyRow(md, "Redis CPU: fixed window ≤ 1.2 × the seed's script", threads, r,
					List.of("fixed-window", "fixed-window+batching"), (v) -> v[2] / seed[2], 1.2, false);
			steadyRow(md, "Redis CPU: every O(1) algorithm ≤ 1.5 × the seed's script", threads, r, withBatching(o1),
					(v) -> v[2] / seed[2], 1.5, false);
			steadyRow(md, "Redis CPU: sliding log ≤ 2 × the seed's script", threads, r, withBatching(List.of("sliding-window-log")),
					(v) -> v[2] / seed[2], 2, false);
			steadyRow(md, "Client CPU ≤ 1.15 × plain Lettuce EVALSHA (seed's script)", threads, r, withBatching(o1),
					(v) -> v[1] / plain[1], 1.15, false);
			steadyRow(md, "Decisions/s ≥ 0.9 × plain Lettuce EVALSHA (seed's script)", threads, r, withBatching(o1),
					(v) -> v[0] / plain[0], 0.9, true);
			steadyRow(md, "Decisions/s ≥ 1.5 × the seed's code", threads, r, withBatching(o1), (v) -> v[0] / seed[0],
					1.5, true);
			double[] bucket4j = r.get("bucket4j");
			if (bucket4j != null) {
				steadyRow(md, "Decisions/s ≥ 2 × Bucket4j", threads, r, withBatching(o1), (v) -> v[0] / bucket4j[0], 2,
						true);
			}
			double[] redisson = r.get("redisson");
			if (redisson != null) {
				steadyRow(md, "Decisions/s ≥ 4 × Redisson", threads, r, withBatching(o1), (v) -> v[0] / redisson[0], 4,
						true);
			}
			steadyRow(md, "Batching: decisions/s ≥ 1.5 × plain Lettuce EVALSHA (seed's script)", threads, r,
					o1.stream().map((system) -> system + Contenders.BATCHING).toList(),
					(v) -> v[0] / plain[0], 1.5, true);
			StringBuilder p99 = new StringBuilder();
			boolean met = true;
			for (String system : Contenders.OURS) {
				double[] off = r.get(system);
				double[] on = r.get(system + Contenders.BATCHING);
				if (off != null && on != null) {
					p99.append((p99.length() > 0) ? ", " : "").append(abbreviated(system)).append(' ')
						.append(number(on[3])).append(" vs ").append(number(off[3])).append(" µs");
					met &= on[3] <= off[3];
				}
			}
			if (p99.length() > 0) {
				md.append("| Batching: p99 no worse than without | ").append(threads).append(" | ").append(p99)
					.append(" | ").append(met ? "yes" : "**no**").append(" |\n");
			}
		}
		md.append("\n");
	}

	private static List<String> withBatching(List<String> systems) {
		List<String> all = new ArrayList<>();
		for (String system : systems) {
			all.add(system);
			all.add(system + Contenders.BATCHING);
		}
		return all;
	}

	private static void steadyRow(StringBuilder md, String target, int threads, Map<String, double[]> results,
			List<String> systems, Function<double[], Double> ratio, double bound, boolean atLeast) {
		StringBuilder measured = new StringBuilder();
		boolean met = true;
		for (String system : systems) {
			double[] values = results.get(system);
			if (values == null) {
				continue;
			}
			double value = ratio.apply(values);
			measured.append((measured.length() > 0) ? ", " : "").append(abbreviated(system)).append(' ').append(ratio(value));
			met &= atLeast ? value >= bound : value <= bound;
		}
		if (measured.length() > 0) {
			md.append("| ").append(target).append(" | ").append(threads).append(" | ").append(measured).append(" | ")
				.append(met ? "yes" : "**no**").append(" |\n");
		}
	}

	private static double parse(String cell) {
		return Double.parseDouble(cell.strip().replace(",", ""));
	}

	private void hotKey(StringBuilder md) {
		md.append("## Hot key: one key far over its limit\n\n");
		md.append("Our fixed window with a limit of 10 per minute; every thread hammers the same key. Each round ")
			.append("uses a fresh key, so its first 10 calls are granted. Redis calls are counted by a wrapper around ")
			.append("the runner and checked against `INFO commandstats` (`EVALSHA` + `EVAL`); \"refused calls\" are ")
			.append("Redis calls that came back refused (calls − 10 granted).\n\n");
		md.append("| Local denial cache | Threads | Rejections per second | Redis calls per round | refused calls to Redis | INFO commandstats | errors |\n")
			.append("|---|---:|---:|---|---|---|---:|\n");
		JsonObject hot = this.measurements.getAsJsonObject("hotKey");
		for (JsonElement element : hot.getAsJsonArray("perMinute")) {
			JsonObject run = element.getAsJsonObject();
			md.append("| ").append(run.get("cache").getAsBoolean() ? "on" : "off").append(" | ")
				.append(run.get("threads").getAsInt()).append(" | ")
				.append(Stats.of(numbers(run.getAsJsonArray("rejectionsPerSecond"))).rateWithRange()).append(" | ")
				.append(list(run.getAsJsonArray("redisCalls"))).append(" | ")
				.append(list(run.getAsJsonArray("rejectedCallsToRedis"))).append(" | ")
				.append(list(run.getAsJsonArray("evalshaCalls"))).append(" | ").append(run.get("errors").getAsLong())
				.append(" |\n");
		}
		md.append("\nRounds of ").append(hot.getAsJsonArray("perMinute").get(0).getAsJsonObject().get("roundSeconds"))
			.append(" s, within one retry period. Over several retry periods, with a limit of 10 per second (cache on, ")
			.append("one round of 5 s):\n\n");
		md.append("| Threads | Redis calls | granted | refused calls to Redis | refused calls per retry period | rejections per second |\n")
			.append("|---:|---:|---:|---:|---:|---:|\n");
		for (JsonElement element : hot.getAsJsonArray("perSecond")) {
			JsonObject run = element.getAsJsonObject();
			double rejected = numbers(run.getAsJsonArray("rejectedCallsToRedis")).get(0).doubleValue();
			md.append("| ").append(run.get("threads").getAsInt()).append(" | ").append(list(run.getAsJsonArray("redisCalls")))
				.append(" | ").append(list(run.getAsJsonArray("allowed"))).append(" | ").append((long) rejected)
				.append(" | ").append(decimal(rejected / run.get("roundSeconds").getAsDouble())).append(" | ")
				.append(Stats.of(numbers(run.getAsJsonArray("rejectionsPerSecond"))).rate()).append(" |\n");
		}
		md.append("\nWith the cache, a rejection is a map lookup and a countdown in the JVM, so its rate is bounded ")
			.append("by the CPU of the benchmark threads, not by Redis.\n");
		md.append("\nA refused key is refused locally until its `retryAfter`. Once Redis has told that a key has few ")
			.append("permits left (under 64), an instance keeps no more calls for it in flight than the permits left plus ")
			.append("one, and the others wait for one to come back, so each retry period costs one Redis call that comes ")
			.append("back refused. What exceeds one per period above comes from the first period of the round: the key ")
			.append("is fresh, nothing is known of it, and every thread's first call goes to Redis.\n\n");
	}

	private List<String> keyCountSystems() {
		List<String> systems = new ArrayList<>();
		for (Result result : this.byKey.values()) {
			if (result.keys() != 10_000 && !systems.contains(result.system())) {
				systems.add(result.system());
			}
		}
		return systems;
	}

	private void keyCount(StringBuilder md) {
		md.append("## Cost against the number of keys (64 threads)\n\n");
		md.append("Every key is written before measuring (pre-filled with the algorithm's own script), and the ")
			.append("key counts run twice, in two passes a few minutes apart, whose iterations are pooled (10 per ")
			.append("row) so that a burst of load from elsewhere on the machine does not pass for a trend. Redis ")
			.append("memory per key is (`used_memory` after the run − `used_memory` of the empty server) ÷ `DBSIZE`, ")
			.append("dictionary and expiry entries included. A fixed window key lives for its hour-long window; a ")
			.append("token bucket key expires as soon as its bucket is full again, which at 1,000,000 per hour is ")
			.append("3.6 ms after one permit, so at any time only the keys of the last few milliseconds exist and ")
			.append("its decisions mostly start a fresh bucket.\n\n");
		md.append("| Algorithm | Keys | Decisions per second | ÷ 1,000 keys | p99 (ms) | Redis µs per decision | keys in Redis | Redis memory per key |\n")
			.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
		for (String system : keyCountSystems()) {
			Result base = result(system, 1000, 64);
			for (int keys : new int[] { 1000, 100_000, 1_000_000 }) {
				Result result = result(system, keys, 64);
				if (result == null) {
					continue;
				}
				JsonObject trial = result.trial();
				String perKey = "–";
				String live = "–";
				String usec = "–";
				if (trial != null) {
					double used = trial.get("redisUsedMemory").getAsDouble() - trial.get("redisUsedMemoryEmpty").getAsDouble();
					perKey = Math.round(used / trial.get("redisKeys").getAsDouble()) + " B";
					live = number(trial.get("redisKeys").getAsDouble());
					usec = decimal(trial.get("redisUsecPerDecision").getAsDouble());
				}
				md.append("| ").append(LABELS.get(system)).append(" | ").append(number(keys)).append(" | ")
					.append(result.throughput().rateWithRange()).append(" | ")
					.append((base != null) ? ratio(result.throughput().median() / base.throughput().median()) : "–")
					.append(" | ").append(Report.millis(result.p99() / 1000)).append(" | ").append(usec).append(" | ")
					.append(live).append(" | ").append(perKey).append(" |\n");
			}
		}
		md.append("\n");
	}

	private long memoryBytes(String system, int limit) {
		for (JsonElement element : this.measurements.getAsJsonArray("memory")) {
			JsonObject row = element.getAsJsonObject();
			if (row.get("system").getAsString().equals(system) && row.get("limit").getAsInt() == limit) {
				return row.get("bytes").getAsLong();
			}
		}
		return -1;
	}

	private void memory(StringBuilder md) {
		md.append("## Redis memory per key (`MEMORY USAGE`, budget fully spent, window 1 minute)\n\n");
		md.append("| System | limit 10 | limit 1,000 | limit 1,000,000 |\n|---|---:|---:|---:|\n");
		for (String system : List.of("fixed-window", "sliding-window-counter", "token-bucket", "gcra",
				"sliding-window-log", "bucket4j", "redisson")) {
			md.append("| ").append(LABELS.get(system));
			for (int limit : new int[] { 10, 1000, 1_000_000 }) {
				long bytes = memoryBytes(system, limit);
				md.append(" | ").append((bytes >= 0) ? bytes + " B" : "–");
			}
			md.append(" |\n");
		}
		md.append("\nOur O(1) algorithms spend the budget of 1,000,000 in one call of 1,000,000 permits, which ")
			.append("leaves the same state as a million calls. Their hash holds two numbers as digits, so a key ")
			.append("grows by a few bytes as the numbers get longer, never with the limit itself. The sliding ")
			.append("window log keeps one entry per permit and Redisson one per `tryAcquire` in the window, so both ")
			.append("grow with the limit (spent one permit per call; Bucket4j and Redisson with a one-day window so ")
			.append("that nothing refills meanwhile, ours on a fixed clock).\n\n");
	}

	private static Stats httpStat(JsonObject http, Function<JsonObject, Double> value) {
		List<Double> values = new ArrayList<>();
		for (JsonElement element : http.getAsJsonArray("rounds")) {
			values.add(value.apply(element.getAsJsonObject()));
		}
		return Stats.of(values);
	}

	private void http(StringBuilder md, String name, String title, String what, String application) {
		md.append("## ").append(title).append("\n\n");
		JsonObject http = this.measurements.has(name) ? this.measurements.getAsJsonObject(name) : null;
		if (http == null || !http.has("pooled")) {
			md.append("Not measured in this run").append((http != null && http.has("skipped"))
					? ": " + http.get("skipped").getAsString() : "").append(".\n\n");
			return;
		}
		md.append(application).append(" against the benchmark's redis-server. `")
			.append(http.get("rulePath").getAsString()).append("` carries a rule keyed by `X-Api-Key` with a limit ")
			.append("of 100,000,000 per hour (never reached; each request sends one of 10,000 keys), `")
			.append(http.get("noRulePath").getAsString()).append("` none (its rule is moved away by a property). ")
			.append("Load: ").append(http.get("connections").getAsInt()).append(" keep-alive connections on loopback ")
			.append("from a raw-socket client, ").append(http.get("ratePerSecond").getAsInt())
			.append(" requests per second in total at fixed intervals, each connection alternating between the two ")
			.append("endpoints; latency counts from when a request was due. ").append(http.get("warmUpSeconds"))
			.append(" s of warm-up, then ").append(http.getAsJsonArray("rounds").size()).append(" rounds of ")
			.append(http.get("roundSeconds")).append(" s.\n\n");
		JsonObject pooled = http.getAsJsonObject("pooled");
		md.append("All rounds pooled (").append(number(pooled.get("noRuleRequests").getAsDouble())).append(" and ")
			.append(number(pooled.get("ruleRequests").getAsDouble())).append(" requests):\n\n");
		md.append("| Endpoint | p50 (ms) | p99 (ms) |\n|---|---:|---:|\n");
		md.append("| no rule | ").append(Report.millis(pooled.get("noRuleP50").getAsDouble())).append(" | ")
			.append(Report.millis(pooled.get("noRuleP99").getAsDouble())).append(" |\n");
		md.append("| rule (one Redis decision) | ").append(Report.millis(pooled.get("ruleP50").getAsDouble())).append(" | ")
			.append(Report.millis(pooled.get("ruleP99").getAsDouble())).append(" |\n");
		md.append("| **added by ").append(what).append("** | ")
			.append(Report.millis(pooled.get("ruleP50").getAsDouble() - pooled.get("noRuleP50").getAsDouble()))
			.append(" | ").append(Report.millis(pooled.get("ruleP99").getAsDouble() - pooled.get("noRuleP99").getAsDouble()))
			.append(" |\n\n");
		md.append("Per round (median of the rounds, min–max in small type); a p99 of one round rests on its ")
			.append("30 slowest requests, so a pause anywhere on the machine moves it:\n\n");
		md.append("| Endpoint | p50 (ms) | p99 (ms) |\n|---|---:|---:|\n");
		md.append("| no rule | ").append(httpStat(http, (r) -> r.get("noRuleP50").getAsDouble()).millisWithRange())
			.append(" | ").append(httpStat(http, (r) -> r.get("noRuleP99").getAsDouble()).millisWithRange()).append(" |\n");
		md.append("| rule (one Redis decision) | ")
			.append(httpStat(http, (r) -> r.get("ruleP50").getAsDouble()).millisWithRange()).append(" | ")
			.append(httpStat(http, (r) -> r.get("ruleP99").getAsDouble()).millisWithRange()).append(" |\n");
		md.append("| **added by ").append(what).append("** | ")
			.append(httpStat(http, (r) -> r.get("ruleP50").getAsDouble() - r.get("noRuleP50").getAsDouble())
				.millisWithRange())
			.append(" | ")
			.append(httpStat(http, (r) -> r.get("ruleP99").getAsDouble() - r.get("noRuleP99").getAsDouble())
				.millisWithRange())
			.append(" |\n\n");
		long errors = 0;
		for (JsonElement element : http.getAsJsonArray("rounds")) {
			errors += element.getAsJsonObject().get("errors").getAsLong();
		}
		md.append("Responses other than 200 during the rounds: ").append(errors).append(".\n\n");
	}

	private static String list(JsonArray values) {
		List<String> parts = new ArrayList<>();
		for (Number value : numbers(values)) {
			parts.add(number(value.doubleValue()));
		}
		return String.join(", ", parts);
	}

	static List<Number> numbers(JsonArray array) {
		List<Number> numbers = new ArrayList<>();
		for (JsonElement element : array) {
			numbers.add(element.getAsDouble());
		}
		return numbers;
	}

	static String number(double value) {
		if (Double.isNaN(value)) {
			return "–";
		}
		return String.format(Locale.ROOT, "%,d", Math.round(value));
	}

	static String millis(double value) {
		if (Double.isNaN(value)) {
			return "–";
		}
		return String.format(Locale.ROOT, (Math.abs(value) < 10) ? "%.2f" : "%.1f", value);
	}

	static String decimal(double value) {
		return String.format(Locale.ROOT, "%.2f", value);
	}

	private static String ratio(double value) {
		return Double.isNaN(value) || Double.isInfinite(value) ? "–" : String.format(Locale.ROOT, "%.2f×", value);
	}

	private static String yes(boolean met) {
		return met ? "**yes**" : "**no**";
	}

	private static String abbreviated(String system) {
		if (system.endsWith(Contenders.BATCHING)) {
			return abbreviated(system.substring(0, system.length() - Contenders.BATCHING.length())) + "+b";
		}
		return switch (system) {
			case "fixed-window" -> "fixed";
			case "sliding-window-counter" -> "counter";
			case "sliding-window-log" -> "log";
			case "token-bucket" -> "bucket";
			case "gcra" -> "GCRA";
			default -> system;
		};
	}

	/**
	 * One JMH result with the trial's own counters.
	 *
	 * @param system the system
	 * @param keys the number of keys
	 * @param threads the number of threads
	 * @param throughput decisions per second over the measurement iterations
	 * @param p50 median latency in µs
	 * @param p99 99th percentile in µs
	 * @param p999 99.9th percentile in µs
	 * @param trial what the trial recorded of the server, or {@code null}
	 */
	record Result(String system, int keys, int threads, Stats throughput, double p50, double p99, double p999,
			@Nullable JsonObject trial) {

		String key() {
			return this.system + "|" + this.keys + "|" + this.threads;
		}

		static Result of(JsonObject run, Path results) throws IOException {
			JsonObject params = run.getAsJsonObject("params");
			String system = params.get("system").getAsString();
			int keys = params.get("keys").getAsInt();
			int threads = run.get("threads").getAsInt();
			JsonObject metric = run.getAsJsonObject("primaryMetric");
			JsonObject percentiles = metric.getAsJsonObject("scorePercentiles");
			Path trialFile = results.resolve("trial-" + system + "-k" + keys + "-t" + threads + ".json");
			JsonObject trial = Files.exists(trialFile) ? JsonParser.parseString(Files.readString(trialFile)).getAsJsonObject()
					: null;
			Stats throughput = Stats.of(threads * 1e6 / metric.get("score").getAsDouble());
			if (trial != null) {
				List<Number> perSecond = numbers(trial.getAsJsonArray("perSecond"));
				// a second pass, later in the run, of the same trial: its iterations count as repeats
				Path second = results.resolve("trial-" + system + "-k" + keys + "-t" + threads + "-pass2.json");
				if (Files.exists(second)) {
					perSecond.addAll(numbers(JsonParser.parseString(Files.readString(second)).getAsJsonObject()
						.getAsJsonArray("perSecond")));
				}
				throughput = Stats.of(perSecond);
			}
			return new Result(system, keys, threads, throughput, percentiles.get("50.0").getAsDouble(),
					percentiles.get("99.0").getAsDouble(), percentiles.get("99.9").getAsDouble(), trial);
		}

	}

}

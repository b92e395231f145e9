package dev.ratelimit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import com.google.gson.JsonParser;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

import dev.ratelimit.LocalDenialCache;
import dev.ratelimit.RateLimit;
import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisRateLimiter;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

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

	private static final int KEYS = 10_000;

	private static final byte[] PING = RespConnection.encode("PING");

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
				results.put("physicalLimit", measurements.physicalLimit(redis));
				log("Lettuce asynchronous EVALSHA");
				results.put("lettuceAsync", measurements.lettuceAsync(redis));
			}
		}
		if (parts.contains("async")) {
			log("our limiters' asynchronous API, one thread, decisions in flight");
			results.put("limiterAsync", new AsyncScenario(measurements.round, measurements.rounds).run());
		}
		if (parts.contains("hot-key")) {
			try (BenchmarkRedis redis = BenchmarkRedis.start()) {
				log("hot key");
				results.put("hotKey", measurements.hotKey(redis));
			}
		}
		if (parts.contains("memory")) {
			try (BenchmarkRedis redis = BenchmarkRedis.start()) {
				log("memory per key");
				results.put("memory", measurements.memory(redis));
			}
		}
		if (parts.contains("http")) {
			try (BenchmarkRedis redis = BenchmarkRedis.start()) {
				log("HTTP, servlet sample");
				results.put("http", new HttpScenario(redis, HttpScenario.Application.servlet(sampleJar), out).run());
			}
		}
		if (parts.contains("http-webflux")) {
			if (webfluxJar != null && Files.isRegularFile(webfluxJar)) {
				try (BenchmarkRedis redis = BenchmarkRedis.start()) {
					log("HTTP, WebFlux sample");
					results.put("httpWebflux",
							new HttpScenario(redis, HttpScenario.Application.webflux(webfluxJar), out).run());
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

	static void log(String message) {
		System.out.println("[measurements] " + message);
	}

	private List<Map<String, Object>> physicalLimit(BenchmarkRedis redis) throws InterruptedException {
		List<Map<String, Object>> results = new ArrayList<>();
		for (String script : PHYSICAL_SCRIPTS) {
			OurContender.SentScript sent = OurContender.SentScript.capture(script, Contenders.ALLOWED);
			String sha = sent.load(redis);
			byte[][] commands = new byte[KEYS][];
			for (int i = 0; i < KEYS; i++) {
				commands[i] = sent.evalsha(sha, "physical:" + script + ":user-" + i);
			}
			for (int depth : CONCURRENCY) {
				try (RespConnection connection = RespConnection.open(redis.port())) {
					pipeline(connection, commands, depth, this.round.toNanos());
					List<Double> perSecond = new ArrayList<>();
					ServerCounters before = redis.counters();
					for (int r = 0; r < this.rounds; r++) {
						long start = System.nanoTime();
						long count = pipeline(connection, commands, depth, this.round.toNanos());
						perSecond.add(count / ((System.nanoTime() - start) / 1e9));
					}
					ServerCounters after = redis.counters();
					results.add(row("script", script, "depth", depth, "perSecond", perSecond, "redisCpuShare",
							(after.cpuSeconds() - before.cpuSeconds()) / ((after.nanoTime() - before.nanoTime()) / 1e9),
							"redisUsecPerCall",
							(double) (after.usec() - before.usec()) / after.callsSince(before, "evalsha")));
					log(script + " depth " + depth + ": " + perSecond);
				}
			}
		}
		return results;
	}

	/**
	 * Keeps {@code depth} commands in flight on one connection for a while, as a pipelining client
	 * does: a writer sends whenever a slot is free and flushes when none is, a reader takes the replies
	 * and frees the slots. Returns the replies received.
	 */
	private static long pipeline(RespConnection connection, byte[][] commands, int depth, long nanos)
			throws InterruptedException {
		Semaphore slots = new Semaphore(depth);
		AtomicLong received = new AtomicLong();
		AtomicReference<RuntimeException> failure = new AtomicReference<>();
		Thread reader = new Thread(() -> {
			try {
				// a PING after the last command marks the end: its reply is the only status reply
				while (!"PONG".equals(connection.readOk())) {
					received.incrementAndGet();
					slots.release();
				}
			}
			catch (RuntimeException ex) {
				failure.set(ex);
				slots.release(depth);
			}
		}, "physical-limit-reader");
		reader.start();
		SplittableRandom random = new SplittableRandom(depth);
		long deadline = System.nanoTime() + nanos;
		while (System.nanoTime() < deadline && failure.get() == null) {
			if (!slots.tryAcquire()) {
				connection.flush();
				slots.acquire();
			}
			connection.write(commands[random.nextInt(commands.length)]);
		}
		connection.write(PING);
		connection.flush();
		reader.join();
		if (failure.get() != null) {
			throw failure.get();
		}
		return received.get();
	}

	private List<Map<String, Object>> lettuceAsync(BenchmarkRedis redis) throws InterruptedException {
		List<Map<String, Object>> results = new ArrayList<>();
		RedisClient client = RedisClient.create(RedisURI.create(redis.url()));
		try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
			RedisAsyncCommands<byte[], byte[]> commands = connection.async();
			for (String script : List.of("fixed-window")) {
				OurContender.SentScript sent = OurContender.SentScript.capture(script, Contenders.ALLOWED);
				String sha = sent.load(redis);
				byte[][] keys = new byte[KEYS][];
				for (int i = 0; i < KEYS; i++) {
					keys[i] = ("lettuce:" + script + ":user-" + i).getBytes(StandardCharsets.UTF_8);
				}
				byte[][] args = sent.args().stream().map((arg) -> arg.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
				for (int depth : CONCURRENCY) {
					inFlight(commands, sha, keys, args, depth, this.round.toNanos());
					List<Double> perSecond = new ArrayList<>();
					for (int r = 0; r < this.rounds; r++) {
						long start = System.nanoTime();
						long count = inFlight(commands, sha, keys, args, depth, this.round.toNanos());
						perSecond.add(count / ((System.nanoTime() - start) / 1e9));
					}
					results.add(row("script", script, "depth", depth, "perSecond", perSecond));
					log("lettuce " + script + " depth " + depth + ": " + perSecond);
				}
			}
		}
		finally {
			client.shutdown();
		}
		return results;
	}

	private static long inFlight(RedisAsyncCommands<byte[], byte[]> commands, String sha, byte[][] keys, byte[][] args,
			int depth, long nanos) throws InterruptedException {
		Semaphore slots = new Semaphore(depth);
		AtomicLong done = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		SplittableRandom random = new SplittableRandom(depth);
		long deadline = System.nanoTime() + nanos;
		while (System.nanoTime() < deadline) {
			slots.acquire();
			commands.evalsha(sha, ScriptOutputType.MULTI, new byte[][] { keys[random.nextInt(keys.length)] }, args)
				.whenComplete((reply, error) -> {
					if (error != null) {
						failed.incrementAndGet();
					}
					done.incrementAndGet();
					slots.release();
				});
		}
		slots.acquire(depth);
		if (failed.get() > 0) {
			throw new IllegalStateException(failed.get() + " EVALSHA calls failed");
		}
		return done.get();
	}

	private Map<String, Object> hotKey(BenchmarkRedis redis) throws InterruptedException {
		List<Map<String, Object>> runs = new ArrayList<>();
		RateLimit perMinute = RateLimit.of(10, Duration.ofMinutes(1));
		for (boolean cached : new boolean[] { false, true }) {
			for (int threads : new int[] { 8, 64 }) {
				runs.add(hotKeyRun(redis, perMinute, cached, threads, Duration.ofSeconds(3), 3));
			}
		}
		// a short window, so that a run spans several retry periods
		RateLimit perSecond = RateLimit.of(10, Duration.ofSeconds(1));
		List<Map<String, Object>> periods = new ArrayList<>();
		for (int threads : new int[] { 8, 64 }) {
			periods.add(hotKeyRun(redis, perSecond, true, threads, Duration.ofSeconds(5), 1));
		}
		return row("perMinute", runs, "perSecond", periods);
	}

	private Map<String, Object> hotKeyRun(BenchmarkRedis redis, RateLimit limit, boolean cached, int threads,
			Duration length, int roundCount) throws InterruptedException {
		String[] keys = new String[roundCount + 1];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = "hot-" + limit.windowLabel() + "-" + cached + "-" + threads + "-" + i;
		}
		LongAdder calls = new LongAdder();
		LocalDenialCache cache = cached ? new LocalDenialCache(10_000) : null;
		try (OurContender contender = Contenders.ours("fixed-window", redis, keys, limit, cache, calls, false)) {
			contender.warmUp();
			hammer(contender, 0, threads, Duration.ofSeconds(1).toNanos());
			List<Double> rejectionsPerSecond = new ArrayList<>();
			List<Long> redisCalls = new ArrayList<>();
			List<Long> evalshaCalls = new ArrayList<>();
			List<Long> allowed = new ArrayList<>();
			List<Long> rejectedCalls = new ArrayList<>();
			long errorsBefore = contender.errors();
			for (int r = 1; r <= roundCount; r++) {
				calls.reset();
				ServerCounters before = redis.counters();
				long start = System.nanoTime();
				long[] counts = hammer(contender, r, threads, length.toNanos());
				double seconds = (System.nanoTime() - start) / 1e9;
				ServerCounters after = redis.counters();
				rejectionsPerSecond.add(counts[1] / seconds);
				redisCalls.add(calls.sum());
				evalshaCalls.add(after.callsSince(before, "evalsha") + after.callsSince(before, "eval"));
				allowed.add(counts[0] - counts[1]);
				rejectedCalls.add(calls.sum() - (counts[0] - counts[1]));
			}
			Map<String, Object> run = row("limit", limit.limit() + "/" + limit.windowLabel(), "cache", cached,
					"threads", threads, "roundSeconds", length.toSeconds(), "rejectionsPerSecond", rejectionsPerSecond,
					"redisCalls", redisCalls, "evalshaCalls", evalshaCalls, "allowed", allowed, "rejectedCallsToRedis",
					rejectedCalls, "errors", contender.errors() - errorsBefore);
			log("hot key " + run);
			return run;
		}
	}

	/** Returns {decisions, rejections} of {@code threads} threads hammering one key for a while. */
	private static long[] hammer(Contender contender, int keyIndex, int threads, long nanos)
			throws InterruptedException {
		LongAdder decisions = new LongAdder();
		LongAdder rejections = new LongAdder();
		long deadline = System.nanoTime() + nanos;
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				long decided = 0;
				long rejected = 0;
				while (System.nanoTime() < deadline) {
					if (!contender.tryAcquire(keyIndex)) {
						rejected++;
					}
					decided++;
				}
				decisions.add(decided);
				rejections.add(rejected);
			}, "hot-key-" + t);
			workers.add(worker);
			worker.start();
		}
		for (Thread worker : workers) {
			worker.join();
		}
		return new long[] { decisions.sum(), rejections.sum() };
	}

	private List<Map<String, Object>> memory(BenchmarkRedis redis) {
		List<Map<String, Object>> results = new ArrayList<>();
		LettuceConnectionFactory factory = Contenders.connectionFactory(redis);
		try (LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofSeconds(2))) {
			// time stands still while a budget is spent, so that nothing refills meanwhile
			Clock clock = Clock.fixed(Instant.now(), ZoneOffset.UTC);
			for (String algorithm : List.of("fixed-window", "sliding-window-counter", "token-bucket", "gcra",
					"sliding-window-log")) {
				boolean log = algorithm.equals("sliding-window-log");
				for (int limit : log ? new int[] { 10, 1000 } : new int[] { 10, 1000, 1_000_000 }) {
					RedisRateLimiter limiter = OurContender.limiter(algorithm, runner).keyPrefix("memory")
						.clock(clock)
						.build();
					String id = "memory-" + limit;
					RateLimit rateLimit = RateLimit.of(limit, Duration.ofMinutes(1));
					if (log) {
						spend(limit, () -> limiter.tryAcquire(id, rateLimit).allowed());
					}
					else {
						// the whole budget in one call: the state is the same as after a permit at a time
						if (!limiter.tryAcquire(id, rateLimit, limit).allowed() || limiter.tryAcquire(id, rateLimit).allowed()) {
							throw new IllegalStateException(algorithm + " did not spend a budget of " + limit);
						}
					}
					results.add(row("system", algorithm, "limit", limit, "bytes", memoryUsage(redis, limiter.redisKey(id))));
				}
			}
		}
		finally {
			factory.destroy();
		}
		for (int limit : new int[] { 10, 1000 }) {
			String[] keys = { "memory-" + limit };
			// they take the client's or the server's time: a day-long window refills nothing while spending
			RateLimit rateLimit = RateLimit.of(limit, Duration.ofDays(1));
			try (Contender bucket4j = Contenders.create("bucket4j", redis, keys, rateLimit)) {
				spend(limit, () -> bucket4j.tryAcquire(0));
				results.add(row("system", "bucket4j", "limit", limit, "bytes",
						memoryUsage(redis, "bucket4j:" + keys[0])));
			}
			try (Contender redisson = Contenders.create("redisson", redis, keys, rateLimit)) {
				spend(limit, () -> redisson.tryAcquire(0));
				String name = "redisson:" + keys[0];
				long bytes = 0;
				for (Object key : (List<?>) redis.admin().call("KEYS", "*redisson:*")) {
					String redisKey = new String((byte[]) key, StandardCharsets.UTF_8);
					if (redisKey.equals(name) || redisKey.startsWith("{" + name + "}")) {
						bytes += memoryUsage(redis, redisKey);
					}
				}
				results.add(row("system", "redisson", "limit", limit, "bytes", bytes));
			}
		}
		log("memory " + results);
		return results;
	}

	private static void spend(int limit, java.util.function.BooleanSupplier decide) {
		for (int i = 0; i < limit; i++) {
			if (!decide.getAsBoolean()) {
				throw new IllegalStateException("permit " + (i + 1) + " of " + limit + " was refused");
			}
		}
		if (decide.getAsBoolean()) {
			throw new IllegalStateException("permit " + (limit + 1) + " of " + limit + " was granted");
		}
	}

	private static long memoryUsage(BenchmarkRedis redis, String key) {
		Object bytes = redis.admin().call("MEMORY", "USAGE", key, "SAMPLES", "0");
		if (bytes == null) {
			throw new IllegalStateException("No key " + key);
		}
		return (Long) bytes;
	}

	static Map<String, Object> row(Object... pairs) {
		Map<String, Object> row = new LinkedHashMap<>();
		for (int i = 0; i < pairs.length; i += 2) {
			row.put((String) pairs[i], pairs[i + 1]);
		}
		return row;
	}

	static void sleep(long millis) {
		try {
			TimeUnit.MILLISECONDS.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

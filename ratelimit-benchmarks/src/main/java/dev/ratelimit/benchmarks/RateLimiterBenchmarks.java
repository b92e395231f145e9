package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import com.google.gson.GsonBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;

/**
 * Decisions on the allowed path (a limit of a million per hour, never reached) over random keys, one
 * system per trial against a fresh redis-server; latency sampled per decision. Besides JMH's result,
 * each trial writes what Redis saw during the measurement iterations: commands per decision, server
 * time per decision and the server's CPU use.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RateLimiterBenchmarks {

	/** The system under test. */
	@Param({ "fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket", "gcra",
			"seed-fixed-window", "seed-sliding-window-log", "bucket4j", "redisson", "lettuce-evalsha" })
	public String system;

	/** How many distinct keys the decisions spread over. */
	@Param("10000")
	public int keys;

	private BenchmarkRedis redis;

	private Contender contender;

	private final LongAdder decisions = new LongAdder();

	private final LongAdder rejections = new LongAdder();

	private ServerCounters iterationStart;

	private long measuredDecisions;

	private long emptyMemory;

	private long measuredNanos;

	private double measuredCpuSeconds;

	private long measuredUsec;

	private final Map<String, Long> measuredCalls = new LinkedHashMap<>();

	private final List<Double> perSecond = new ArrayList<>();

	private long iterationCpuNanos;

	private long measuredJvmCpuNanos;

	/**
	 * Starts Redis and the system, and makes every key exist.
	 */
	@Setup(Level.Trial)
	public void startRedis() {
		this.redis = BenchmarkRedis.start();
		this.emptyMemory = Long.parseLong(this.redis.info("memory").get("used_memory"));
		this.contender = Contenders.create(this.system, this.redis, Contenders.keys(this.keys), Contenders.ALLOWED);
		this.contender.prefill();
	}

	/**
	 * Takes the server's counters before an iteration.
	 */
	@Setup(Level.Iteration)
	public void startIteration() {
		this.decisions.reset();
		this.iterationStart = this.redis.counters();
		this.iterationCpuNanos = processCpuNanos();
	}

	/**
	 * Adds what the server did during a measurement iteration.
	 * @param params the iteration
	 */
	@TearDown(Level.Iteration)
	public void endIteration(IterationParams params) {
		long cpuNanos = processCpuNanos();
		ServerCounters end = this.redis.counters();
		if (params.getType() != IterationType.MEASUREMENT) {
			return;
		}
		long decided = this.decisions.sum();
		long nanos = end.nanoTime() - this.iterationStart.nanoTime();
		this.perSecond.add(decided / (nanos / 1e9));
		this.measuredDecisions += decided;
		this.measuredNanos += nanos;
		this.measuredJvmCpuNanos += cpuNanos - this.iterationCpuNanos;
		this.measuredCpuSeconds += end.cpuSeconds() - this.iterationStart.cpuSeconds();
		this.measuredUsec += end.usec() - this.iterationStart.usec();
		end.callsSince(this.iterationStart).forEach((command, calls) -> this.measuredCalls.merge(command, calls, Long::sum));
	}

	/**
	 * Writes the server's side of the trial and stops the system and Redis.
	 * @param params the trial
	 */
	@TearDown(Level.Trial)
	public void stopRedis(BenchmarkParams params) {
		try {
			Map<String, Object> trial = new LinkedHashMap<>();
			trial.put("system", this.system);
			trial.put("keys", this.keys);
			trial.put("threads", params.getThreads());
			trial.put("redisVersion", this.redis.version());
			trial.put("decisions", this.measuredDecisions);
			trial.put("rejections", this.rejections.sum());
			trial.put("errors", (this.contender instanceof OurContender ours) ? ours.errors() : 0);
			trial.put("redisCommands", this.measuredCalls);
			trial.put("perSecond", this.perSecond);
			trial.put("jvmCpuShare", this.measuredJvmCpuNanos / (double) this.measuredNanos);
			trial.put("redisCpuShare", this.measuredCpuSeconds / (this.measuredNanos / 1e9));
			trial.put("redisUsecPerDecision", (double) this.measuredUsec / Math.max(this.measuredDecisions, 1));
			trial.put("redisUsedMemory", Long.parseLong(this.redis.info("memory").get("used_memory")));
			trial.put("redisUsedMemoryEmpty", this.emptyMemory);
			trial.put("redisKeys", this.redis.admin().call("DBSIZE"));
			write(trial, "trial-" + this.system + "-k" + this.keys + "-t" + params.getThreads()
					+ System.getProperty("bench.pass", "") + ".json");
			if (this.rejections.sum() > 0) {
				System.err.println(this.system + ": " + this.rejections.sum() + " rejections on the allowed path");
			}
		}
		finally {
			this.contender.close();
			this.redis.close();
		}
	}

	/**
	 * Decides one request for a random key.
	 * @return whether it was allowed
	 */
	@Benchmark
	public boolean decide() {
		boolean allowed = this.contender.tryAcquire(ThreadLocalRandom.current().nextInt(this.keys));
		this.decisions.increment();
		if (!allowed) {
			this.rejections.increment();
		}
		return allowed;
	}

	static long processCpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	static void write(Object value, String fileName) {
		Path dir = Path.of(System.getProperty("bench.out", "ratelimit-benchmarks/target/bench"));
		try {
			Files.createDirectories(dir);
			Files.writeString(dir.resolve(fileName), new GsonBuilder().setPrettyPrinting().create().toJson(value));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}

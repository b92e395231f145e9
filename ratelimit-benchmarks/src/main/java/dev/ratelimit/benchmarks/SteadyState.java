package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;
import dev.ratelimit.testsupport.RedisBinary;

/**
 * The allowed path in a steady state, system by system: a redis-server of its own pinned to one CPU
 * and this JVM to another (run it through {@code ratelimit-benchmarks/steady-state.sh}, which pins the
 * JVM with {@code taskset}), 10,000 keys that exist before measuring, a warm-up, then a measurement
 * of the same length that reports decisions per second, the client's CPU µs per decision (this
 * process, from {@code /proc/self/stat}), Redis's CPU µs per decision ({@code INFO cpu}), of it the µs
 * inside scripts ({@code EVALSHA} and {@code EVAL} in {@code INFO commandstats}: the rest is the
 * requests around them), the Redis commands per decision ({@code INFO commandstats}), the context switches of
 * this process's threads per decision ({@code /proc/self/task/&#42;/status}: the threads handing work to each other), how
 * busy Redis was (decisions per second times its CPU per decision: the share of the physical limit of those very
 * decisions, a batched decision's included, that the client reached), with the
 * ratios of each figure to plain Lettuce
 * {@code EVALSHA} of the seed's fixed-window script (issue 17's reference; plain Lettuce {@code EVALSHA}
 * of our fixed-window script is a row of its own).
 * <p>
 * Properties: {@code -Dsystems=fixed-window,lettuce-evalsha} (default: ours, each also with
 * batching ({@code fixed-window+batching}, ...), plain Lettuce
 * {@code EVALSHA} of our fixed-window script and of the seed's, the same script over four Lettuce connections and
 * over a Jedis pool, the seed's two limiters, Bucket4j and Redisson), {@code -Dthreads=8,64} (default 64),
 * {@code -Dsteady.out=<file>} (the tables, for {@code Report}),
 * {@code -Dwarmup=30s}, {@code -Dmeasure=30s}, {@code -Dredis.cpu=1} (the CPU redis-server is pinned
 * to; the script pins the JVM to the others). A full run takes about a minute per system; it needs
 * a machine with nothing else running to mean anything.
 */
public final class SteadyState {

	private static final int KEYS = 10_000;

	/** The most decisions each thread times in a measurement. */
	private static final int SAMPLES = 1 << 16;

	private SteadyState() {
	}

	/**
	 * Runs every system in turn and prints a table.
	 * @param args none
	 * @throws Exception when a run fails
	 */
	public static void main(String[] args) throws Exception {
		List<String> systems = new ArrayList<>();
		String only = System.getProperty("systems");
		if (only != null) {
			systems.addAll(List.of(only.split(",")));
		}
		else {
			systems.addAll(Contenders.OURS);
			systems.addAll(Contenders.OURS_BATCHING);
			systems.add(Contenders.LETTUCE_EVALSHA);
			systems.add(Contenders.LETTUCE_EVALSHA_SEED);
			systems.add(Contenders.LETTUCE_EVALSHA_STRIPED);
			systems.add(Contenders.JEDIS_EVALSHA);
			systems.addAll(Contenders.SEED);
			systems.addAll(Contenders.PEERS);
		}
		Duration warmup = duration(System.getProperty("warmup", "30s"));
		Duration measure = duration(System.getProperty("measure", "30s"));
		Path pinned = pinnedRedis(System.getProperty("redis.cpu", "1"));
		StringBuilder tables = new StringBuilder();
		for (String count : System.getProperty("threads", "64").split(",")) {
			int threads = Integer.parseInt(count.strip());
			List<Result> results = new ArrayList<>();
			for (String system : systems) {
				Result result = run(system, pinned, threads, warmup, measure);
				System.out.println("[steady-state] " + threads + " threads: " + result);
				results.add(result);
			}
			tables.append(table(results, threads, warmup, measure));
		}
		System.out.println();
		System.out.print(tables);
		String out = System.getProperty("steady.out");
		if (out != null) {
			// for Report, which puts it in BENCHMARKS.md
			Files.writeString(Path.of(out), tables);
		}
	}

	/**
	 * One thread count's results as a Markdown table, with the ratios to plain Lettuce {@code EVALSHA} of
	 * the seed's script.
	 */
	private static String table(List<Result> results, int threads, Duration warmup, Duration measure) {
		Result base = results.stream().filter((r) -> r.system().equals(Contenders.LETTUCE_EVALSHA_SEED)).findFirst()
			.orElse(null);
		StringBuilder md = new StringBuilder();
		md.append(String.format(Locale.ROOT, "%d threads, %d keys, allowed path, warm-up %s, measured %s:%n%n",
				threads, KEYS, seconds(warmup), seconds(measure)));
		md.append("| system | decisions/s | client CPU µs | Redis CPU µs | p50 / p99 latency µs | Redis commands per decision ")
			.append("| ÷ plain Lettuce EVALSHA of the seed's script (decisions/s, client CPU, Redis CPU) ")
			.append("| Redis µs inside scripts | client context switches per decision ")
			.append("| Redis busy: ÷ the physical limit of its decisions (1 s ÷ Redis CPU per decision) |\n");
		md.append("|---|---:|---:|---:|---:|---|---|---:|---:|---:|\n");
		for (Result r : results) {
			String ratios = (base == null) ? "–"
					: String.format(Locale.ROOT, "%.2f× / %.2f× / %.2f×", r.perSecond() / base.perSecond(),
							r.clientMicros() / base.clientMicros(), r.redisMicros() / base.redisMicros());
			md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %.1f | %,.0f / %,.0f | %s | %s | %.1f | %.2f | %.2f× |%n",
					r.system(), r.perSecond(), r.clientMicros(), r.redisMicros(), r.p50Micros(), r.p99Micros(), r.commands(),
					ratios, r.scriptMicros(), r.switches(), r.perSecond() * r.redisMicros() / 1e6));
		}
		return md.append('\n').toString();
	}

	private static String seconds(Duration duration) {
		return (duration.toMillis() % 1000 == 0) ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
	}

	private static Result run(String system, Path redisBinary, int threads, Duration warmup, Duration measure)
			throws InterruptedException {
		try (BenchmarkRedis redis = BenchmarkRedis.start(redisBinary)) {
			String[] keys = Contenders.keys(KEYS);
			try (Contender contender = Contenders.create(system, redis, keys, Contenders.ALLOWED)) {
				contender.prefill();
				LongAdder decisions = new LongAdder();
				AtomicBoolean stop = new AtomicBoolean();
				AtomicBoolean measuring = new AtomicBoolean();
				CountDownLatch done = new CountDownLatch(threads);
				long[][] latencies = new long[threads][SAMPLES];
				int[] sampled = new int[threads];
				for (int t = 0; t < threads; t++) {
					SplittableRandom random = new SplittableRandom(t);
					int index = t;
					Thread thread = new Thread(() -> {
						try {
							long calls = 0;
							while (!stop.get()) {
								// every 8th decision of the measurement is timed, up to SAMPLES per thread
								if ((++calls & 7) == 0 && sampled[index] < SAMPLES && measuring.get()) {
									long started = System.nanoTime();
									contender.tryAcquire(random.nextInt(KEYS));
									latencies[index][sampled[index]++] = System.nanoTime() - started;
								}
								else {
									contender.tryAcquire(random.nextInt(KEYS));
								}
								decisions.increment();
							}
						}
						finally {
							done.countDown();
						}
					}, "steady-" + t);
					thread.setDaemon(true);
					thread.start();
				}
				Thread.sleep(warmup.toMillis());
				ServerCounters before = redis.counters();
				long decisionsBefore = decisions.sum();
				ProcessCounters clientBefore = ProcessCounters.self();
				long start = System.nanoTime();
				measuring.set(true);
				Thread.sleep(measure.toMillis());
				measuring.set(false);
				ServerCounters after = redis.counters();
				long count = decisions.sum() - decisionsBefore;
				ProcessCounters client = ProcessCounters.self();
				long clientNanos = client.userNanos() + client.systemNanos() - clientBefore.userNanos()
						- clientBefore.systemNanos();
				double seconds = (System.nanoTime() - start) / 1e9;
				stop.set(true);
				done.await();
				long[] all = new long[Arrays.stream(sampled).sum()];
				int at = 0;
				for (int t = 0; t < threads; t++) {
					System.arraycopy(latencies[t], 0, all, at, sampled[t]);
					at += sampled[t];
				}
				Arrays.sort(all);
				StringBuilder commands = new StringBuilder();
				for (Map.Entry<String, Long> entry : after.callsSince(before).entrySet()) {
					commands.append(String.format(Locale.ROOT, "%.2f %s, ", entry.getValue() / (double) count,
							entry.getKey().toUpperCase(Locale.ROOT)));
				}
				return new Result(system, count / seconds, clientNanos / 1e3 / count,
						(after.cpuSeconds() - before.cpuSeconds()) * 1e6 / count,
						(commands.length() > 0) ? commands.substring(0, commands.length() - 2) : "none",
						percentileMicros(all, 0.50), percentileMicros(all, 0.99),
						(after.scriptUsec() - before.scriptUsec()) / (double) count,
						(client.switches() - clientBefore.switches()) / (double) count);
			}
		}
	}


	private static Path pinnedRedis(String cpu) {
		try {
			Path wrapper = Files.createTempFile("redis-server-pinned-", ".sh");
			Files.writeString(wrapper, "#!/bin/sh\nexec taskset -c " + cpu + " " + RedisBinary.find() + " \"$@\"\n");
			if (!wrapper.toFile().setExecutable(true)) {
				throw new IllegalStateException("Could not make " + wrapper + " executable");
			}
			wrapper.toFile().deleteOnExit();
			return wrapper;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Duration duration(String text) {
		String value = text.trim().toLowerCase(Locale.ROOT);
		if (value.endsWith("ms")) {
			return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
		}
		if (value.endsWith("s")) {
			return Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)));
		}
		return Duration.parse(text);
	}

	private static double percentileMicros(long[] sorted, double fraction) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)] / 1e3;
	}

	private record Result(String system, double perSecond, double clientMicros, double redisMicros, String commands,
			double p50Micros, double p99Micros, double scriptMicros, double switches) {
	}

}

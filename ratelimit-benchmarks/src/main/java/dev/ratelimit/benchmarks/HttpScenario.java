package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.ratelimit.testsupport.RedisServerProcess;

/**
 * A sample application in a JVM of its own, under a fixed request rate over a few keep-alive
 * connections on loopback; each connection alternates between an endpoint without a rule and one with
 * a rule whose limit is never reached, so that both see the same load. Latency counts from when a
 * request was due, not from when it was sent, so that a stall is never hidden. The same load runs
 * against the servlet sample (the rules in a servlet filter and interceptor) and the WebFlux sample
 * (the rules in a {@code WebFilter}).
 */
final class HttpScenario {

	private static final int CONNECTIONS = 8;

	private static final int RATE = 1000;

	/** 20 s, or {@code -Dbench.http-warmup-seconds} (a slow or shared machine needs longer); 3 s with QUICK. */
	private static final long WARM_UP_NANOS = TimeUnit.SECONDS
		.toNanos(Measurements.QUICK ? 3 : Long.getLong("bench.http-warmup-seconds", 20));

	private static final long ROUND_NANOS = TimeUnit.SECONDS.toNanos(Measurements.QUICK ? 2 : 6);

	private static final int ROUNDS = Measurements.QUICK ? 2 : 5;

	private final BenchmarkRedis redis;

	private final SampleApplication application;

	private final Path out;

	HttpScenario(BenchmarkRedis redis, SampleApplication application, Path out) {
		this.redis = redis;
		this.application = application;
		this.out = out;
	}

	Map<String, Object> run() throws InterruptedException {
		SampleApplication application = this.application;
		int port = RedisServerProcess.freePort();
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java, "-jar", application.jar().toString(),
				"--server.port=" + port, "--server.address=127.0.0.1", "--spring.data.redis.url=" + this.redis.url(),
				"--logging.level.root=WARN"));
		command.addAll(application.arguments());
		String more = System.getProperty("bench.app-args", "").strip();
		if (!more.isEmpty()) {
			// to compare settings, such as --ratelimit.batching.enabled=false
			command.addAll(List.of(more.split("\\s+")));
		}
		Process app;
		try {
			app = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.out.resolve(application.name() + ".log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + application.name(), ex);
		}
		try {
			KeepAliveClient.Response first = awaitStarted(app, port, application);
			KeepAliveClient.Response ruled = awaitDecision(port, application);
			if (first.headers().contains("ratelimit-policy:") || !ruled.headers().contains("ratelimit-policy:")) {
				throw new IllegalStateException("Expected a rule on " + application.rulePath() + " only, got headers "
						+ first.headers() + " and " + ruled.headers());
			}
			Measurements.log("HTTP warm-up against " + application.name() + " on port " + port);
			load(port, application, WARM_UP_NANOS);
			List<Map<String, Object>> rounds = new ArrayList<>();
			List<long[]> allNoRule = new ArrayList<>();
			List<long[]> allRule = new ArrayList<>();
			for (int r = 0; r < ROUNDS; r++) {
				long[][] latencies = load(port, application, ROUND_NANOS);
				allNoRule.add(latencies[0]);
				allRule.add(latencies[1]);
				Map<String, Object> round = Measurements.row("noRuleP50", percentile(latencies[0], 0.50),
						"noRuleP99", percentile(latencies[0], 0.99), "ruleP50", percentile(latencies[1], 0.50),
						"ruleP99", percentile(latencies[1], 0.99), "requests", latencies[0].length + latencies[1].length,
						"errors", latencies[2].length);
				Measurements.log("HTTP round " + round);
				rounds.add(round);
			}
			long[] noRule = concat(allNoRule);
			long[] rule = concat(allRule);
			Map<String, Object> pooled = Measurements.row("noRuleP50", percentile(noRule, 0.50), "noRuleP99",
					percentile(noRule, 0.99), "ruleP50", percentile(rule, 0.50), "ruleP99", percentile(rule, 0.99),
					"noRuleRequests", noRule.length, "ruleRequests", rule.length);
			return Measurements.row("application", application.name(), "jar", application.jar().toString(), "pooled",
					pooled, "connections", CONNECTIONS, "ratePerSecond", RATE, "roundSeconds",
					TimeUnit.NANOSECONDS.toSeconds(ROUND_NANOS), "warmUpSeconds", TimeUnit.NANOSECONDS.toSeconds(WARM_UP_NANOS),
					"noRulePath", application.noRulePath(), "rulePath", application.rulePath(), "rounds", rounds);
		}
		finally {
			app.destroy();
			if (!app.waitFor(10, TimeUnit.SECONDS)) {
				app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
	}

	private static KeepAliveClient.Response awaitStarted(Process app, int port, SampleApplication application) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		while (System.nanoTime() < deadline) {
			if (!app.isAlive()) {
				throw new IllegalStateException(application.name() + " exited with " + app.exitValue());
			}
			try (KeepAliveClient client = new KeepAliveClient(port)) {
				KeepAliveClient.Response response = client.get(application.noRulePath(), "check");
				if (response.status() == 200) {
					return response;
				}
			}
			catch (UncheckedIOException ex) {
				// not listening yet
			}
			Thread.sleep(200);
		}
		throw new IllegalStateException(application.name() + " did not answer on port " + port + " within 90s");
	}

	/**
	 * Asks the path with the rule until Redis decides it: while the application's JVM is cold, or the
	 * machine busy, a first decision can outlast the limiter's timeout and the request passes without
	 * rate-limit headers (fail-open). Returns the first response with them, or the last one after 30 s.
	 */
	private static KeepAliveClient.Response awaitDecision(int port, SampleApplication application) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		try (KeepAliveClient client = new KeepAliveClient(port)) {
			while (true) {
				KeepAliveClient.Response response = client.get(application.rulePath(), "check");
				if (response.headers().contains("ratelimit-policy:") || System.nanoTime() > deadline) {
					return response;
				}
				Thread.sleep(200);
			}
		}
	}

	/** Returns the latencies in microseconds: without rule, with rule, and one entry per error. */
	private static long[][] load(int port, SampleApplication application, long nanos) throws InterruptedException {
		long intervalNanos = TimeUnit.SECONDS.toNanos(1) * CONNECTIONS / RATE;
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
		List<Thread> threads = new ArrayList<>();
		long[][][] perConnection = new long[CONNECTIONS][][];
		for (int c = 0; c < CONNECTIONS; c++) {
			int connection = c;
			Thread thread = new Thread(() -> {
				LatencyLog noRule = new LatencyLog();
				LatencyLog rule = new LatencyLog();
				LatencyLog errors = new LatencyLog();
				SplittableRandom random = new SplittableRandom(connection);
				try (KeepAliveClient client = new KeepAliveClient(port)) {
					long due = start + connection * intervalNanos / CONNECTIONS;
					for (long i = 0; due < start + nanos; i++, due += intervalNanos) {
						long wait = due - System.nanoTime();
						if (wait > 0) {
							LockSupport.parkNanos(wait);
						}
						boolean ruled = (i % 2) == 1;
						KeepAliveClient.Response response;
						try {
							response = client.get(ruled ? application.rulePath() : application.noRulePath(),
									"key-" + random.nextInt(10_000));
						}
						catch (UncheckedIOException ex) {
							response = new KeepAliveClient.Response(0, "");
						}
						long micros = (System.nanoTime() - due) / 1000;
						if (response.status() != 200) {
							errors.add(micros);
						}
						else {
							(ruled ? rule : noRule).add(micros);
						}
					}
				}
				perConnection[connection] = new long[][] { noRule.toArray(), rule.toArray(), errors.toArray() };
			}, "http-load-" + c);
			threads.add(thread);
			thread.start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		long[][] merged = new long[3][];
		for (int kind = 0; kind < 3; kind++) {
			LatencyLog all = new LatencyLog();
			for (long[][] connection : perConnection) {
				for (long micros : connection[kind]) {
					all.add(micros);
				}
			}
			merged[kind] = all.toArray();
		}
		return merged;
	}

	/** Returns the values of every part, in order. */
	static long[] concat(List<long[]> parts) {
		LatencyLog all = new LatencyLog();
		for (long[] part : parts) {
			for (long value : part) {
				all.add(value);
			}
		}
		return all.toArray();
	}

	/** Returns a percentile of latencies in microseconds, in milliseconds. */
	static double percentile(long[] micros, double p) {
		if (micros.length == 0) {
			return Double.NaN;
		}
		long[] sorted = micros.clone();
		Arrays.sort(sorted);
		int index = (int) Math.ceil(p * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1000.0;
	}

	private static final class LatencyLog {

		private long[] values = new long[1024];

		private int size;

		void add(long value) {
			if (this.size == this.values.length) {
				this.values = Arrays.copyOf(this.values, this.size * 2);
			}
			this.values[this.size++] = value;
		}

		long[] toArray() {
			return Arrays.copyOf(this.values, this.size);
		}

	}

}

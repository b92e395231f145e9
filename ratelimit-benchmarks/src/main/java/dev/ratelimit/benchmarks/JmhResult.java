package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.jspecify.annotations.Nullable;

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
record JmhResult(String system, int keys, int threads, Stats throughput, double p50, double p99, double p999,
		@Nullable JsonObject trial) {

	/** Returns the key of a result: system, keys and threads. */
	static String key(String system, int keys, int threads) {
		return system + "|" + keys + "|" + threads;
	}

	String key() {
		return key(this.system, this.keys, this.threads);
	}

	/** Reads one run of a JMH result file, with its trial files ({@link RateLimiterBenchmarks}) from the directory. */
	static JmhResult of(JsonObject run, Path results) throws IOException {
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
			List<Number> perSecond = Format.numbers(trial.getAsJsonArray("perSecond"));
			// a second pass, later in the run, of the same trial: its iterations count as repeats
			Path second = results.resolve("trial-" + system + "-k" + keys + "-t" + threads + "-pass2.json");
			if (Files.exists(second)) {
				perSecond.addAll(Format.numbers(JsonParser.parseString(Files.readString(second)).getAsJsonObject()
					.getAsJsonArray("perSecond")));
			}
			throughput = Stats.of(perSecond);
		}
		return new JmhResult(system, keys, threads, throughput, percentiles.get("50.0").getAsDouble(),
				percentiles.get("99.0").getAsDouble(), percentiles.get("99.9").getAsDouble(), trial);
	}

}

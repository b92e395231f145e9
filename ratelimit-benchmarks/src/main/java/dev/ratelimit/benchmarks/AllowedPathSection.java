package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntToDoubleFunction;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.jspecify.annotations.Nullable;

/**
 * The report's tables of the allowed path at 10,000 keys: decisions per second and latency per system, the
 * ratios between systems, and where the time goes at 64 threads.
 */
final class AllowedPathSection {

	private static final int[] THREADS = Measurements.CONCURRENCY;

	private static final List<String> PEERS = List.of("bucket4j", "redisson", "seed-fixed-window", "seed-sliding-window-log",
			Contenders.LETTUCE_EVALSHA);

	private AllowedPathSection() {
	}

	/** Returns the decisions per second and the latency of every system, blocking and asynchronous. */
	static String throughput(RunResults run) {
		StringBuilder rates = new StringBuilder();
		for (String system : Labels.systems()) {
			rates.append("| ").append(Labels.of(system));
			long errors = 0;
			long rejections = 0;
			for (int threads : THREADS) {
				rates.append(" | ").append(run.throughput(system, threads).rateWithRange());
				JmhResult result = run.result(system, 10_000, threads);
				if (result != null && result.trial() != null) {
					errors += result.trial().get("errors").getAsLong();
					rejections += result.trial().get("rejections").getAsLong();
				}
			}
			rates.append(" | ").append(errors).append(" / ").append(rejections).append(" |\n");
		}
		for (String script : Measurements.PHYSICAL_SCRIPTS) {
			rates.append("| **physical limit: ").append(script).append(" script, raw pipeline** (in flight: 1 / 8 / 64)");
			for (int depth : THREADS) {
				rates.append(" | ").append(run.physical(script, depth).rateWithRange());
			}
			rates.append(" | |\n");
		}
		rates.append("| Lettuce async, fixed-window script, no limiter code (in flight: 1 / 8 / 64)");
		for (int depth : THREADS) {
			rates.append(" | ").append(run.series("lettuceAsync", "fixed-window", depth).rateWithRange());
		}
		rates.append(" | |\n");
		for (String system : Contenders.OURS) {
			if (run.asyncRow(system, 64) == null) {
				continue;
			}
			rates.append("| ").append(Labels.async(system)).append(" (in flight: 1 / 8 / 64)");
			long errors = 0;
			long rejections = 0;
			for (int depth : THREADS) {
				rates.append(" | ").append(run.async(system, depth).rateWithRange());
				JsonObject row = run.asyncRow(system, depth);
				if (row != null) {
					errors += row.get("errors").getAsLong();
					rejections += row.get("rejections").getAsLong();
				}
			}
			rates.append(" | ").append(errors).append(" / ").append(rejections).append(" |\n");
		}
		StringBuilder latencies = new StringBuilder();
		for (String system : Labels.systems()) {
			latencies.append("| ").append(Labels.of(system));
			for (int threads : THREADS) {
				JmhResult result = run.result(system, 10_000, threads);
				latencies.append(" | ").append((result != null) ? Format.millis(result.p50() / 1000) + " / "
						+ Format.millis(result.p99() / 1000) + " / " + Format.millis(result.p999() / 1000) : "–");
			}
			latencies.append(" |\n");
		}
		for (String system : Contenders.OURS) {
			if (run.asyncRow(system, 64) == null) {
				continue;
			}
			latencies.append("| ").append(Labels.async(system)).append(" (in flight: 1 / 8 / 64)");
			for (int depth : THREADS) {
				latencies.append(" | ").append(asyncLatencies(run.asyncRow(system, depth)));
			}
			latencies.append(" |\n");
		}
		return Template.load("sections/allowed-path.md").render(Map.of("rates", rates, "latencies", latencies));
	}

	/** Returns the p50 / p99 / p99.9 of a row of the asynchronous API in ms, or "–". */
	static String asyncLatencies(@Nullable JsonObject row) {
		if (row == null) {
			return "–";
		}
		return Format.millis(row.get("p50").getAsDouble()) + " / " + Format.millis(row.get("p99").getAsDouble()) + " / "
				+ Format.millis(row.get("p999").getAsDouble());
	}

	/** Returns each of our limiters' rates divided by those of the physical limit and of each other system. */
	static String ratios(RunResults run) {
		StringBuilder rows = new StringBuilder();
		for (String system : Contenders.OURS) {
			rows.append("| ").append(Labels.of(system));
			rows.append(" | ").append(ratios(run, system, (threads) -> run.physicalFor(system, threads).median()));
			for (String peer : PEERS) {
				rows.append(" | ").append(ratios(run, system, (threads) -> run.throughput(peer, threads).median()));
			}
			rows.append(" |\n");
		}
		return Template.load("sections/ratios.md").render(Map.of("rows", rows));
	}

	private static String ratios(RunResults run, String system, IntToDoubleFunction denominator) {
		List<String> parts = new ArrayList<>();
		for (int threads : THREADS) {
			parts.add(Format.ratio(run.throughput(system, threads).median() / denominator.applyAsDouble(threads)));
		}
		return String.join(" / ", parts);
	}

	/** Returns Redis's commands, time and CPU and the client's CPU per decision at 64 threads. */
	static String whereTheTimeGoes(RunResults run) {
		StringBuilder rows = new StringBuilder();
		for (String system : Labels.systems()) {
			JmhResult result = run.result(system, 10_000, 64);
			if (result == null || result.trial() == null) {
				continue;
			}
			JsonObject trial = result.trial();
			double decisions = trial.get("decisions").getAsDouble();
			List<String> commands = new ArrayList<>();
			for (Map.Entry<String, JsonElement> entry : trial.getAsJsonObject("redisCommands").entrySet()) {
				double perDecision = entry.getValue().getAsDouble() / decisions;
				if (perDecision >= 0.01) {
					commands.add(Format.decimal(perDecision) + " " + entry.getKey().toUpperCase(Locale.ROOT));
				}
			}
			rows.append("| ").append(Labels.of(system)).append(" | ").append(String.join(", ", commands)).append(" | ")
				.append(Format.decimal(trial.get("redisUsecPerDecision").getAsDouble())).append(" | ")
				.append(Format.decimal(trial.get("redisCpuShare").getAsDouble())).append(" | ")
				.append(Format.decimal(trial.get("jvmCpuShare").getAsDouble())).append(" |\n");
		}
		for (String script : Measurements.PHYSICAL_SCRIPTS) {
			JsonObject row = run.physicalRow(script, 64);
			if (row != null) {
				rows.append("| physical limit: ").append(script).append(", 64 in flight | 1 EVALSHA | ")
					.append(Format.decimal(row.get("redisUsecPerCall").getAsDouble())).append(" | ")
					.append(Format.decimal(row.get("redisCpuShare").getAsDouble())).append(" | – |\n");
			}
		}
		return Template.load("sections/where-the-time-goes.md").render(Map.of("rows", rows));
	}

}

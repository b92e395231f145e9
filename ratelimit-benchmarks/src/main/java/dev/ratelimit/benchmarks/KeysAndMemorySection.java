package dev.ratelimit.benchmarks;

import java.util.List;
import java.util.Map;

import com.google.gson.JsonObject;

/**
 * The report's two sections on keys: the cost against the number of keys, and Redis memory per key.
 */
final class KeysAndMemorySection {

	private static final List<String> MEMORY_SYSTEMS = List.of("fixed-window", "sliding-window-counter", "token-bucket", "gcra",
			"sliding-window-log", "bucket4j", "redisson");

	private KeysAndMemorySection() {
	}

	/** Returns decisions per second, latency and Redis's memory from 1,000 to 1,000,000 keys. */
	static String keyCount(RunResults run) {
		StringBuilder rows = new StringBuilder();
		for (String system : run.keyCountSystems()) {
			JmhResult base = run.result(system, 1000, 64);
			for (int keys : new int[] { 1000, 100_000, 1_000_000 }) {
				JmhResult result = run.result(system, keys, 64);
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
					live = Format.number(trial.get("redisKeys").getAsDouble());
					usec = Format.decimal(trial.get("redisUsecPerDecision").getAsDouble());
				}
				rows.append("| ").append(Labels.of(system)).append(" | ").append(Format.number(keys)).append(" | ")
					.append(result.throughput().rateWithRange()).append(" | ")
					.append((base != null) ? Format.ratio(result.throughput().median() / base.throughput().median()) : "–")
					.append(" | ").append(Format.millis(result.p99() / 1000)).append(" | ").append(usec).append(" | ")
					.append(live).append(" | ").append(perKey).append(" |\n");
			}
		}
		return Template.load("sections/key-count.md").render(Map.of("rows", rows));
	}

	/** Returns the bytes of a key whose budget is spent, at limits of 10, 1,000 and 1,000,000. */
	static String memory(RunResults run) {
		StringBuilder rows = new StringBuilder();
		for (String system : MEMORY_SYSTEMS) {
			rows.append("| ").append(Labels.of(system));
			for (int limit : new int[] { 10, 1000, 1_000_000 }) {
				long bytes = run.memoryBytes(system, limit);
				rows.append(" | ").append((bytes >= 0) ? bytes + " B" : "–");
			}
			rows.append(" |\n");
		}
		return Template.load("sections/memory.md").render(Map.of("rows", rows));
	}

}

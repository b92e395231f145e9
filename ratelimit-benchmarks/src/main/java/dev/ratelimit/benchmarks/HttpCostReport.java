package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Turns the rounds of {@link HttpCost} into Markdown: a table of every target (medians over the rounds), the
 * issue's targets as ratios taken within each round and then their median (so that a slow spell of the machine,
 * which falls on one round, moves both sides of a ratio), and where each application's time went.
 */
final class HttpCostReport {

	static final String LETTUCE = "plain Lettuce async EVALSHA";

	private HttpCostReport() {
	}

	@SuppressWarnings("unchecked")
	static String markdown(Map<String, Object> results, Map<String, String> profiles) {
		List<Map<String, Object>> rounds = (List<Map<String, Object>>) results.get("rounds");
		List<String> labels = new ArrayList<>();
		for (String label : rounds.get(0).keySet()) {
			if (!label.startsWith(LETTUCE)) {
				labels.add(label);
			}
		}
		StringBuilder md = new StringBuilder();
		md.append(String.format("%d connections, closed loop, %d keys; a warm-up in passes of %s s per target, alternating, "
				+ "until no target answers more than 10%% faster than in every earlier pass (%s), then %d rounds of %d s "
				+ "alternating between the targets; applications pinned to CPU %s; redis-server %s, the load and the "
				+ "gateway's upstream on the CPU the driver runs on (run.sh: CPU 1). One stack at a time: only its applications "
				+ "and the yardstick's JVM are up. "
				+ "Medians over the rounds.%n%n",
				results.get("connections"), results.get("keys"), stepSeconds(results), warmUps(results), rounds.size(),
				results.get("roundSeconds"), results.get("appCpu"), results.get("redisVersion")));
		md.append("| target | requests/s | app CPU µs per request | of which in the kernel | app context switches per request "
				+ "| Redis CPU µs per request | EVALSHA per request | p50 ms | p99 ms | errors, reconnects (all rounds) |\n"
				+ "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (String label : labels) {
			md.append(String.format("| %s | %,.0f | %.1f | %.0f%% | %.2f | %.1f | %.2f | %.2f | %.2f | %d, %d |%n", label,
					median(rounds, label, "perSecond"), median(rounds, label, "appCpuMicros"),
					100 * median(rounds, label, "appKernelShare"), median(rounds, label, "appSwitches"),
					median(rounds, label, "redisCpuMicros"),
					medianOf(rounds, (round) -> value(round, label, "evalsha") / Math.max(1, value(round, label, "responses"))),
					median(rounds, label, "p50"), median(rounds, label, "p99"),
					(long) rounds.stream().mapToDouble((round) -> value(round, label, "errors")).sum(),
					(long) rounds.stream().mapToDouble((round) -> value(round, label, "reconnects")).sum()));
		}
		for (String label : rounds.get(0).keySet()) {
			if (label.startsWith(LETTUCE)) {
				md.append(String.format("| %s (client JVM, %d in flight, beside the %s applications) | %,.0f | %.1f (client) | | | | 1 | | | |%n",
						LETTUCE, results.get("connections"), label.substring(LETTUCE.length() + 1),
						median(rounds, label, "perSecond"), median(rounds, label, "clientCpuMicros")));
			}
		}
		md.append('\n');
		md.append("| target | measured (median of the rounds' ratios) | goal |\n|---|---:|---|\n");
		for (String stack : List.of("servlet", "webflux")) {
			String open = stack + " /open";
			String limited = stack + " /limited";
			String three = stack + " /three";
			String plain = stack + "-plain /open";
			if (!labels.contains(limited)) {
				continue;
			}
			String yardstick = LETTUCE + "@" + stack;
			md.append(String.format("| %s: a rule's added app CPU per request, in plain Lettuce async EVALSHA client CPUs "
					+ "| %.2fx (%.1f µs) | ≤ 1.5x |%n", stack, medianOf(rounds, (round) -> (value(round, limited, "appCpuMicros") - value(round, open, "appCpuMicros"))
							/ value(round, yardstick, "clientCpuMicros")),
					medianOf(rounds, (round) -> value(round, limited, "appCpuMicros") - value(round, open, "appCpuMicros"))));
			md.append(ratio(rounds, stack + ": throughput with one rule / without (same application)", limited, open, "perSecond",
					"≥ 0.75x (stretch 0.85x)"));
			md.append(String.format("| %s: p99 added by one rule | %.2f ms | ≤ 0.5 ms |%n", stack,
					medianOf(rounds, (round) -> value(round, limited, "p99") - value(round, open, "p99"))));
			md.append(String.format("| %s: three rules' added app CPU / one rule's | %.2fx | < 1.3x |%n", stack,
					medianOf(rounds, (round) -> (value(round, three, "appCpuMicros") - value(round, open, "appCpuMicros"))
							/ (value(round, limited, "appCpuMicros") - value(round, open, "appCpuMicros")))));
			md.append(ratio(rounds, stack + ": three rules' throughput / one rule's", three, limited, "perSecond", "(1.0x: as cheap)"));
			md.append(ratio(rounds, stack + ": no rule matched, with the starter / without it", open, plain, "perSecond",
					"1.0x (as cheap)"));
			String redis = stack + "-plain /redis";
			md.append(String.format("| %s: the bound: app CPU a Redis call made by hand in the handler adds (no starter) | %.1f µs |  |%n",
					stack, medianOf(rounds, (round) -> value(round, redis, "appCpuMicros") - value(round, plain, "appCpuMicros"))));
			md.append(String.format("| %s: a rule's added app CPU / the hand-made call's | %.2fx |  |%n", stack,
					medianOf(rounds, (round) -> (value(round, limited, "appCpuMicros") - value(round, open, "appCpuMicros"))
							/ (value(round, redis, "appCpuMicros") - value(round, plain, "appCpuMicros")))));
			md.append(ratio(rounds, stack + ": throughput with a rule / with the hand-made call", limited, redis, "perSecond", ""));
		}
		if (labels.contains("gateway /limited")) {
			md.append(ratio(rounds, "gateway: limited route / unlimited route (same gateway)", "gateway /limited",
					"gateway /open", "perSecond", "≥ 0.95x"));
			md.append(ratio(rounds, "gateway: ratelimit's limited route / Spring Cloud Gateway's RedisRateLimiter", "gateway /limited",
					"gateway-scg /limited", "perSecond", "≥ 2.5x"));
			md.append(ratio(rounds, "gateway: unlimited route, with ratelimit / without it", "gateway /open", "gateway-scg /open",
					"perSecond", "1.0x (as cheap)"));
		}
		if (!profiles.isEmpty()) {
			md.append("\n### Where a request's time goes\n\nJFR execution samples (every 10 ms; native-method samples too, "
					+ "unused here) over one more "
					+ "round of every target after the measured ones, every path of the application together.\n");
			profiles.forEach((name, summary) -> md.append("\n#### ").append(name).append("\n\n").append(summary));
		}
		return md.toString();
	}

	@SuppressWarnings("unchecked")
	private static Object stepSeconds(Map<String, Object> results) {
		return ((Map<String, Object>) results.get("warmUp")).values().stream()
			.map((row) -> ((Map<String, Object>) row).get("stepSeconds"))
			.findFirst()
			.orElse("?");
	}

	@SuppressWarnings("unchecked")
	private static String warmUps(Map<String, Object> results) {
		List<String> parts = new ArrayList<>();
		((Map<String, Object>) results.get("warmUp")).forEach((stack, value) -> {
			Map<String, Object> row = (Map<String, Object>) value;
			parts.add(String.format("%s: %d passes%s", stack, ((Number) row.get("passes")).intValue(),
					((Boolean) row.get("settled")) ? "" : ", not settled within the most allowed"));
		});
		return String.join("; ", parts);
	}

	private static String ratio(List<Map<String, Object>> rounds, String what, String top, String bottom, String field,
			String goal) {
		return String.format("| %s | %.2fx | %s |%n", what,
				medianOf(rounds, (round) -> value(round, top, field) / value(round, bottom, field)), goal);
	}

	private static double median(List<Map<String, Object>> rounds, String label, String field) {
		return medianOf(rounds, (round) -> value(round, label, field));
	}

	static double medianOf(List<Map<String, Object>> rounds, ToDoubleFunction<Map<String, Object>> value) {
		double[] values = rounds.stream().mapToDouble(value).toArray();
		Arrays.sort(values);
		int n = values.length;
		return (n % 2 == 1) ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
	}

	@SuppressWarnings("unchecked")
	private static double value(Map<String, Object> round, String label, String field) {
		Object row = round.get(label);
		if (row == null) {
			return Double.NaN;
		}
		return ((Number) ((Map<String, Object>) row).get(field)).doubleValue();
	}

}

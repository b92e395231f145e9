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
			if (!label.equals(LETTUCE)) {
				labels.add(label);
			}
		}
		StringBuilder md = new StringBuilder();
		md.append(String.format("%d connections, closed loop, %d keys; %d s of warm-up per target, then %d rounds of %d s "
				+ "alternating between the targets; applications pinned to CPU %s, redis-server %s, the load and the "
				+ "gateway's upstream on the other CPU. Medians over the rounds.%n%n",
				results.get("connections"), results.get("keys"), results.get("warmUpSeconds"), rounds.size(),
				results.get("roundSeconds"), results.get("appCpu"), results.get("redisVersion")));
		md.append("| target | requests/s | app CPU µs per request | Redis CPU µs per request | EVALSHA per request "
				+ "| p50 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
		for (String label : labels) {
			md.append(String.format("| %s | %,.0f | %.1f | %.1f | %.2f | %.2f | %.2f | %d |%n", label,
					median(rounds, label, "perSecond"), median(rounds, label, "appCpuMicros"),
					median(rounds, label, "redisCpuMicros"),
					medianOf(rounds, (round) -> value(round, label, "evalsha") / Math.max(1, value(round, label, "responses"))),
					median(rounds, label, "p50"), median(rounds, label, "p99"),
					(long) rounds.stream().mapToDouble((round) -> value(round, label, "errors")).sum()));
		}
		md.append(String.format("| %s (client JVM, %d in flight) | %,.0f | %.1f (client) | | 1 | | | |%n%n",
				LETTUCE, results.get("connections"), median(rounds, LETTUCE, "perSecond"), median(rounds, LETTUCE, "clientCpuMicros")));
		md.append("| target | measured (median of the rounds' ratios) | goal |\n|---|---:|---|\n");
		for (String stack : List.of("servlet", "webflux")) {
			String open = stack + " /open";
			String limited = stack + " /limited";
			String three = stack + " /three";
			String plain = stack + "-plain /open";
			if (!labels.contains(limited)) {
				continue;
			}
			md.append(String.format("| %s: a rule's added app CPU per request, in plain Lettuce async EVALSHA client CPUs "
					+ "| %.2fx (%.1f µs) | ≤ 1.5x |%n", stack, medianOf(rounds, (round) -> (value(round, limited, "appCpuMicros") - value(round, open, "appCpuMicros"))
							/ value(round, LETTUCE, "clientCpuMicros")),
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
			md.append("\n### Where a request's time goes\n\nJFR execution samples (settings=profile) over the measured rounds, "
					+ "every path of the application together.\n");
			profiles.forEach((name, summary) -> md.append("\n#### ").append(name).append("\n\n").append(summary));
		}
		return md.toString();
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

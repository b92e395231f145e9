package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import com.google.gson.GsonBuilder;
import com.google.gson.ToNumberPolicy;

/**
 * Turns the rounds of {@link HttpCost} into Markdown: a table of every target (medians over the rounds), the
 * issue's targets as ratios taken within each round and then their median (so that a slow spell of the machine,
 * which falls on one round, moves both sides of a ratio), and where each application's time went.
 */
final class HttpCostReport {

	static final String LETTUCE = "plain Lettuce async EVALSHA";

	private HttpCostReport() {
	}

	/**
	 * Writes {@code http-cost.md} anew from a run's {@code http-cost.json}, keeping the run's profiles, so that a
	 * change of the report needs no new run.
	 * @param args the run's {@code http-cost} directory
	 * @throws IOException when a file cannot be read or written
	 */
	@SuppressWarnings("unchecked")
	public static void main(String[] args) throws IOException {
		Path dir = Path.of(args[0]);
		// whole numbers back as longs, as the run wrote them
		Map<String, Object> results = new GsonBuilder().setObjectToNumberStrategy(ToNumberPolicy.LONG_OR_DOUBLE)
			.create()
			.fromJson(Files.readString(dir.resolve("http-cost.json")), Map.class);
		String before = Files.readString(dir.resolve("http-cost.md"));
		int profiles = before.indexOf("\n### Where a request's time goes");
		Files.writeString(dir.resolve("http-cost.md"),
				markdown(results, Map.of()) + ((profiles >= 0) ? before.substring(profiles) : ""));
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
		md.append("| target | measured (median of the rounds' ratios) | goal | met | what bounds it (same rounds) |\n"
				+ "|---|---:|---|---|---|\n");
		for (String stack : List.of("servlet", "webflux", "webflux-shared")) {
			String open = stack + " /open";
			String limited = stack + " /limited";
			String three = stack + " /three";
			String plain = stack + "-plain /open";
			String redis = stack + "-plain /redis";
			if (!labels.contains(limited)) {
				continue;
			}
			String yardstick = LETTUCE + "@" + stack;
			double added = medianOf(rounds, (round) -> cpu(round, limited) - cpu(round, open));
			double inYardsticks = medianOf(rounds,
					(round) -> (cpu(round, limited) - cpu(round, open)) / value(round, yardstick, "clientCpuMicros"));
			double handMade = medianOf(rounds, (round) -> cpu(round, redis) - cpu(round, plain));
			double handMadeInYardsticks = medianOf(rounds,
					(round) -> (cpu(round, redis) - cpu(round, plain)) / value(round, yardstick, "clientCpuMicros"));
			md.append(row(stack + ": a rule's added app CPU per request, in plain Lettuce async EVALSHA client CPUs",
					String.format("%.2fx (%.1f µs)", inYardsticks, added), "≤ 1.5x", inYardsticks <= 1.5,
					String.format("a Redis call made by hand in the handler, without the starter, adds %.2fx (%.1f µs)%s; "
							+ "ratelimit's own part is the rest, %.1f µs", handMadeInYardsticks, handMade,
							(handMadeInYardsticks > 1.5) ? ", already above the goal: the stack's cost of any Redis call bounds it"
									: "",
							added - handMade)));
			double throughput = ratioOf(rounds, limited, open, "perSecond");
			double handMadeThroughput = ratioOf(rounds, redis, plain, "perSecond");
			md.append(row(stack + ": throughput with one rule / without (same application)",
					String.format("%.2fx", throughput), "≥ 0.75x (stretch 0.85x)", throughput >= 0.75,
					String.format("the hand-made Redis call gives %.2fx%s; ours is %.2fx of the hand-made call's throughput",
							handMadeThroughput, (handMadeThroughput < 0.75)
									? ": no request that makes one Redis call reaches 0.75x on this stack" : "",
							ratioOf(rounds, limited, redis, "perSecond"))));
			double p99 = medianOf(rounds, (round) -> value(round, limited, "p99") - value(round, open, "p99"));
			double handMadeP99 = medianOf(rounds, (round) -> value(round, redis, "p99") - value(round, plain, "p99"));
			if (p99 < 0) {
				// the application without a rule had the longer tail: a GC pause on one CPU, not the rule
				md.append(row(stack + ": p99 added by one rule", String.format("%.2f ms", p99), "≤ 0.5 ms", null,
						String.format("no figure: /open's p99 (%.2f ms) is above /limited's (%.2f ms) in this run, the tail of "
								+ "pauses on one CPU rather than of the rule", median(rounds, open, "p99"),
								median(rounds, limited, "p99"))));
			}
			else {
				md.append(row(stack + ": p99 added by one rule", String.format("%.2f ms", p99), "≤ 0.5 ms", p99 <= 0.5,
						String.format("the hand-made Redis call adds %.2f ms%s", handMadeP99,
								(handMadeP99 > 0.5) ? ", already above the goal" : "")));
			}
			double threeRules = medianOf(rounds, (round) -> (cpu(round, three) - cpu(round, open))
					/ (cpu(round, limited) - cpu(round, open)));
			md.append(row(stack + ": three rules' added app CPU / one rule's", String.format("%.2fx", threeRules), "< 1.3x",
					threeRules < 1.3,
					String.format("one script call for the three; Redis CPU per request %.1f µs against %.1f µs for one rule",
							median(rounds, three, "redisCpuMicros"), median(rounds, limited, "redisCpuMicros"))));
			double threeThroughput = ratioOf(rounds, three, limited, "perSecond");
			md.append(row(stack + ": three rules' throughput / one rule's", String.format("%.2fx", threeThroughput),
					"(1.0x: as cheap)", null, ""));
			String hot = stack + " /hot";
			if (labels.contains(hot)) {
				double hotThroughput = ratioOf(rounds, hot, open, "perSecond");
				md.append(row(stack + ": one hot-key rule with prefetch=" + HttpApps.HOT_PREFETCH + " / no rule",
						String.format("%.2fx", hotThroughput), "≥ 0.9x", hotThroughput >= 0.9,
						String.format("%.3f EVALSHA per request (at most 2 / prefetch = %.2f); app CPU per request %.1f µs "
								+ "against %.1f µs without a rule and %.1f µs with one rule calling Redis each time",
								medianOf(rounds, (round) -> value(round, hot, "evalsha")
										/ Math.max(1, value(round, hot, "responses"))),
								2.0 / HttpApps.HOT_PREFETCH, median(rounds, hot, "appCpuMicros"),
								median(rounds, open, "appCpuMicros"), median(rounds, limited, "appCpuMicros"))));
			}
			double untouched = ratioOf(rounds, open, plain, "perSecond");
			md.append(row(stack + ": no rule matched, with the starter / without it", String.format("%.2fx", untouched),
					"1.0x (as cheap; ±5% is this machine's noise)", untouched >= 0.95,
					String.format("app CPU per request %.1f µs with the starter, %.1f µs without",
							median(rounds, open, "appCpuMicros"), median(rounds, plain, "appCpuMicros"))));
		}
		if (labels.contains("gateway /limited")) {
			double limitedRoute = ratioOf(rounds, "gateway /limited", "gateway /open", "perSecond");
			double scgOwn = ratioOf(rounds, "gateway-scg /limited", "gateway-scg /open", "perSecond");
			md.append(row("gateway: limited route / unlimited route (same gateway)", String.format("%.2fx", limitedRoute),
					"≥ 0.95x", limitedRoute >= 0.95,
					String.format("Spring Cloud Gateway's own RedisRateLimiter keeps %.2fx of its gateway's unlimited route",
							scgOwn)));
			double againstScg = ratioOf(rounds, "gateway /limited", "gateway-scg /limited", "perSecond");
			double ceiling = ratioOf(rounds, "gateway /open", "gateway-scg /limited", "perSecond");
			md.append(row("gateway: ratelimit's limited route / Spring Cloud Gateway's RedisRateLimiter",
					String.format("%.2fx", againstScg), "≥ 2.5x", againstScg >= 2.5,
					String.format("the unlimited route itself answers %.2fx as many as the RedisRateLimiter route%s", ceiling,
							(ceiling < 2.5) ? ": a limited route that cost nothing could not reach 2.5x" : "")));
			double unlimited = ratioOf(rounds, "gateway /open", "gateway-scg /open", "perSecond");
			md.append(row("gateway: unlimited route, with ratelimit / without it", String.format("%.2fx", unlimited),
					"1.0x (as cheap; ±5% is this machine's noise)", unlimited >= 0.95, ""));
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

	/** A row of the targets' table; {@code met} {@code null} for a figure without a goal of its own. */
	private static String row(String what, String measured, String goal, Boolean met, String bound) {
		String verdict = (met == null) ? "" : met ? "yes" : "**no**";
		return "| " + what + " | " + measured + " | " + goal + " | " + verdict + " | " + bound + " |\n";
	}

	private static double ratioOf(List<Map<String, Object>> rounds, String top, String bottom, String field) {
		return medianOf(rounds, (round) -> value(round, top, field) / value(round, bottom, field));
	}

	private static double cpu(Map<String, Object> round, String label) {
		return value(round, label, "appCpuMicros");
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

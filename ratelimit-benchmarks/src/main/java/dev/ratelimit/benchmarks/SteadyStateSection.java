package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The report's steady state with pinned CPUs, when the run measured it: {@link SteadyState}'s tables, their
 * targets, and what bounds them, with what each script costs Redis inside it ({@link ScriptCost} under callgrind)
 * where the run counted it.
 */
final class SteadyStateSection {

	private SteadyStateSection() {
	}

	/** Returns the section, or {@code null} when the run left the steady state out. */
	static @Nullable String render(RunResults run, Targets targets) {
		String tables = run.steadyState();
		if (tables == null) {
			return null;
		}
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("tables", tables);
		SteadyStateResults results = SteadyStateResults.parse(tables);
		if (!results.isEmpty()) {
			values.put("targets", SteadyStateTargets.rows(results, targets));
			values.put("bounds", bounds(results, run.scriptCost()));
		}
		return Template.load("sections/steady-state.md").render(values);
	}

	private static String bounds(SteadyStateResults results, @Nullable String scriptCost) {
		Map<Integer, Map<String, SteadyStateResults.Row>> byThreads = results.byThreads();
		List<Integer> threadCounts = new ArrayList<>(byThreads.keySet());
		StringBuilder header = new StringBuilder("| system |");
		StringBuilder alignment = new StringBuilder("|---|");
		for (int threads : threadCounts) {
			header.append(" client / Redis, ").append(threads).append(" threads |");
			alignment.append("---:|");
		}
		StringBuilder rows = new StringBuilder();
		for (String system : byThreads.get(threadCounts.get(0)).keySet()) {
			rows.append("| ").append(system).append(" |");
			for (int threads : threadCounts) {
				SteadyStateResults.Row row = byThreads.get(threads).get(system);
				rows.append((row == null) ? " – |" : String.format(Locale.ROOT, " %.2f / %.2f |", row.perSecond() * row.clientCpu() / 1e6,
						row.perSecond() * row.redisCpu() / 1e6));
			}
			rows.append("\n");
		}
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("sharesHeader", header);
		values.put("sharesAlignment", alignment);
		values.put("shares", rows);
		if (scriptCost != null) {
			values.put("scriptCost", scriptCost.strip());
			values.put("floor", ScriptCost.FLOOR);
			instructions(values, scriptCost, byThreads.get(threadCounts.get(threadCounts.size() - 1)),
					threadCounts.get(threadCounts.size() - 1));
		}
		return Template.load("sections/steady-state-bounds.md").render(values);
	}

	/** Adds the values of the paragraph that compares our fixed window's instructions with the seed's, when all are known. */
	private static void instructions(Map<String, Object> values, String scriptCost, Map<String, SteadyStateResults.Row> steady,
			int threads) {
		Map<String, Double> instructions = new LinkedHashMap<>();
		for (String line : scriptCost.split("\n")) {
			String[] cells = line.split("\\|");
			if (line.startsWith("| ") && cells.length > 2 && cells[2].strip().matches("[\\d,.]+")) {
				instructions.put(cells[1].strip(), Format.parse(cells[2]));
			}
		}
		Double seed = instructions.get("seed-fixed-window");
		Double fixed = instructions.get("fixed-window");
		Double floor = instructions.get(ScriptCost.FLOOR);
		Double batched = instructions.entrySet().stream().filter((e) -> e.getKey().startsWith("fixed-window (batched"))
			.map(Map.Entry::getValue).findFirst().orElse(null);
		SteadyStateResults.Row seedSteady = steady.get("seed-fixed-window");
		SteadyStateResults.Row fixedBatching = steady.get("fixed-window" + Contenders.BATCHING);
		if (seed == null || fixed == null || floor == null || batched == null || seedSteady == null || fixedBatching == null) {
			return;
		}
		values.put("instructions", true);
		values.put("fixed", count(fixed));
		values.put("batched", count(batched));
		values.put("seed", count(seed));
		values.put("fixedOfSeed", times(fixed / seed));
		values.put("commandsOnly", count(floor));
		values.put("commandsOnlyOfSeed", times(floor / seed));
		values.put("logic", count(fixed - floor));
		values.put("seedRedisCpu", String.format(Locale.ROOT, "%.1f", seedSteady.redisCpu()));
		values.put("threads", threads);
		values.put("seedInScript", String.format(Locale.ROOT, "%.1f", seedSteady.inScripts()));
		values.put("batchSize", String.format(Locale.ROOT, "%.0f", fixedBatching.perEvalsha()));
		values.put("batchedInScript", String.format(Locale.ROOT, "%.1f", fixedBatching.inScripts()));
		values.put("batchingOfSeed", times(fixedBatching.redisCpu() / seedSteady.redisCpu()));
	}

	private static String count(double value) {
		return String.format(Locale.ROOT, "%,.0f", value);
	}

	private static String times(double value) {
		return String.format(Locale.ROOT, "%.2f×", value);
	}

}

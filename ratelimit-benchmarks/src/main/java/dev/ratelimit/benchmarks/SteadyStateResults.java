package dev.ratelimit.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The steady state's tables as {@link SteadyState} writes them, read back: per thread count, each system's row.
 */
final class SteadyStateResults {

	/** The {@code EVALSHA} per decision in a steady-state table's commands column. */
	private static final Pattern EVALSHA_PER_DECISION = Pattern.compile("([\\d.]+) EVALSHA");

	private final Map<Integer, Map<String, Row>> byThreads;

	private SteadyStateResults(Map<Integer, Map<String, Row>> byThreads) {
		this.byThreads = byThreads;
	}

	/** Reads the tables of {@code steady-state.md}. */
	static SteadyStateResults parse(String tables) {
		Map<Integer, Map<String, Row>> byThreads = new LinkedHashMap<>();
		Map<String, Row> current = null;
		for (String line : tables.split("\n")) {
			if (line.matches("\\d+ threads,.*")) {
				current = new LinkedHashMap<>();
				byThreads.put(Integer.parseInt(line.substring(0, line.indexOf(' '))), current);
			}
			else if (current != null && line.startsWith("| ") && !line.startsWith("| system")) {
				String[] cells = line.split("\\|");
				String[] latency = cells[5].split("/");
				Matcher evalsha = EVALSHA_PER_DECISION.matcher(cells[6]);
				double perEvalsha = evalsha.find() ? 1 / Double.parseDouble(evalsha.group(1)) : 1;
				double inScripts = (cells.length > 8) ? Format.parse(cells[8]) : Double.NaN;
				current.put(cells[1].strip(), new Row(Format.parse(cells[2]), Format.parse(cells[3]), Format.parse(cells[4]),
						Format.parse(latency[1]), perEvalsha, inScripts));
			}
		}
		return new SteadyStateResults(byThreads);
	}

	/** Returns each thread count's rows by system, in the order of the tables. */
	Map<Integer, Map<String, Row>> byThreads() {
		return this.byThreads;
	}

	boolean isEmpty() {
		return this.byThreads.isEmpty();
	}

	/**
	 * One system's row of a steady-state table.
	 *
	 * @param perSecond decisions per second
	 * @param clientCpu the client's CPU µs per decision
	 * @param redisCpu Redis's CPU µs per decision
	 * @param p99 the p99 latency in µs
	 * @param perEvalsha decisions per {@code EVALSHA}
	 * @param inScripts Redis µs inside scripts per decision, NaN in tables without it
	 */
	record Row(double perSecond, double clientCpu, double redisCpu, double p99, double perEvalsha, double inScripts) {
	}

}

package dev.ratelimit.benchmarks;

import java.util.Locale;
import java.util.Map;

/**
 * One script's figures: per decision, the server's µs in {@code EVALSHA} (instructions under
 * callgrind, where {@code cpuPerCall} is empty), its CPU µs, and the commands the script ran.
 */
record ScriptCostRow(String system, Stats usecPerCall, Stats cpuPerCall, Map<String, Double> commands) {

	String commandsText() {
		StringBuilder text = new StringBuilder();
		double total = 0;
		for (Map.Entry<String, Double> entry : this.commands.entrySet()) {
			text.append(String.format(Locale.ROOT, "%.2f %s, ", entry.getValue(), entry.getKey().toUpperCase(Locale.ROOT)));
			total += entry.getValue();
		}
		return String.format(Locale.ROOT, "%.2f: ", total) + ((text.length() > 0) ? text.substring(0, text.length() - 2) : "none");
	}

	String line() {
		if (this.cpuPerCall.count() == 0) {
			return String.format(Locale.ROOT, "%s: %,.0f instructions per EVALSHA, commands %s", this.system,
					this.usecPerCall.median(), commandsText());
		}
		return String.format(Locale.ROOT, "%s: %.2f µs per EVALSHA (%.2f–%.2f), CPU %.2f µs per decision, commands %s",
				this.system, this.usecPerCall.median(), this.usecPerCall.min(), this.usecPerCall.max(),
				this.cpuPerCall.median(), commandsText());
	}

}

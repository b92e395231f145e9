package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;

/**
 * How the report writes numbers, ratios, verdicts and the short names of systems.
 */
final class Format {

	private Format() {
	}

	/** Returns a rounded count with thousands separators, such as {@code 41,200}; "–" for NaN. */
	static String number(double value) {
		if (Double.isNaN(value)) {
			return "–";
		}
		return String.format(Locale.ROOT, "%,d", Math.round(value));
	}

	/** Returns milliseconds with two decimals below 10 and one above; "–" for NaN. */
	static String millis(double value) {
		if (Double.isNaN(value)) {
			return "–";
		}
		return String.format(Locale.ROOT, (Math.abs(value) < 10) ? "%.2f" : "%.1f", value);
	}

	/** Returns a value with two decimals. */
	static String decimal(double value) {
		return String.format(Locale.ROOT, "%.2f", value);
	}

	/** Returns a ratio such as {@code 1.25×}; "–" where there is none. */
	static String ratio(double value) {
		return Double.isNaN(value) || Double.isInfinite(value) ? "–" : String.format(Locale.ROOT, "%.2f×", value);
	}

	/** Returns the verdict of a target in the Targets table. */
	static String yes(boolean met) {
		return met ? "**yes**" : "**no**";
	}

	/** Returns the short name of a system in the Measured column of a targets table, such as {@code fixed+b}. */
	static String abbreviated(String system) {
		if (system.endsWith(Contenders.BATCHING)) {
			return abbreviated(system.substring(0, system.length() - Contenders.BATCHING.length())) + "+b";
		}
		return switch (system) {
			case "fixed-window" -> "fixed";
			case "sliding-window-counter" -> "counter";
			case "sliding-window-log" -> "log";
			case "token-bucket" -> "bucket";
			case "gcra" -> "GCRA";
			default -> system;
		};
	}

	/** Returns the numbers of a JSON array as counts, separated by commas. */
	static String list(JsonArray values) {
		List<String> parts = new ArrayList<>();
		for (Number value : numbers(values)) {
			parts.add(number(value.doubleValue()));
		}
		return String.join(", ", parts);
	}

	/** Returns the numbers of a JSON array. */
	static List<Number> numbers(JsonArray array) {
		List<Number> numbers = new ArrayList<>();
		for (JsonElement element : array) {
			numbers.add(element.getAsDouble());
		}
		return numbers;
	}

	/** Returns the number in a Markdown table's cell, such as {@code " 41,200 "}. */
	static double parse(String cell) {
		return Double.parseDouble(cell.strip().replace(",", ""));
	}

}

package dev.ratelimit.benchmarks;

import java.util.Map;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * The report's hot key: one key far over its limit, with and without the local denial cache.
 */
final class HotKeySection {

	private HotKeySection() {
	}

	static String render(RunResults run) {
		JsonObject hot = run.measurements().getAsJsonObject("hotKey");
		StringBuilder perMinute = new StringBuilder();
		for (JsonElement element : hot.getAsJsonArray("perMinute")) {
			JsonObject row = element.getAsJsonObject();
			perMinute.append("| ").append(row.get("cache").getAsBoolean() ? "on" : "off").append(" | ")
				.append(row.get("threads").getAsInt()).append(" | ")
				.append(Stats.of(Format.numbers(row.getAsJsonArray("rejectionsPerSecond"))).rateWithRange()).append(" | ")
				.append(Format.list(row.getAsJsonArray("redisCalls"))).append(" | ")
				.append(Format.list(row.getAsJsonArray("rejectedCallsToRedis"))).append(" | ")
				.append(Format.list(row.getAsJsonArray("evalshaCalls"))).append(" | ").append(row.get("errors").getAsLong())
				.append(" |\n");
		}
		StringBuilder perSecond = new StringBuilder();
		for (JsonElement element : hot.getAsJsonArray("perSecond")) {
			JsonObject row = element.getAsJsonObject();
			double rejected = Format.numbers(row.getAsJsonArray("rejectedCallsToRedis")).get(0).doubleValue();
			perSecond.append("| ").append(row.get("threads").getAsInt()).append(" | ")
				.append(Format.list(row.getAsJsonArray("redisCalls"))).append(" | ")
				.append(Format.list(row.getAsJsonArray("allowed"))).append(" | ").append((long) rejected).append(" | ")
				.append(Format.decimal(rejected / row.get("roundSeconds").getAsDouble())).append(" | ")
				.append(Stats.of(Format.numbers(row.getAsJsonArray("rejectionsPerSecond"))).rate()).append(" |\n");
		}
		return Template.load("sections/hot-key.md").render(Map.of("perMinute", perMinute, "perSecond", perSecond,
				"roundSeconds", hot.getAsJsonArray("perMinute").get(0).getAsJsonObject().get("roundSeconds")));
	}

}

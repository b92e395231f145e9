package dev.ratelimit.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

import com.google.gson.JsonObject;

/**
 * The report's Method: the machine, the software, JMH's settings and how each kind of measurement is made.
 */
final class MethodSection {

	private MethodSection() {
	}

	static String render(RunResults run, Environment environment) {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("machine", environment.machine());
		values.put("loadBefore", environment.loadBefore());
		values.put("loadAfter", environment.loadAfter());
		values.put("java", environment.java());
		values.put("redis", run.measurements().get("redisVersion").getAsString());
		values.put("lettuce", environment.lettuce());
		values.put("springDataRedis", environment.springDataRedis());
		JsonObject settings = run.jmhSettings();
		if (settings != null) {
			values.put("jmh", true);
			values.put("forks", settings.get("forks").getAsInt());
			values.put("warmupIterations", settings.get("warmupIterations").getAsInt());
			values.put("warmupTime", settings.get("warmupTime").getAsString());
			values.put("measurementIterations", settings.get("measurementIterations").getAsInt());
			values.put("measurementTime", settings.get("measurementTime").getAsString());
		}
		values.put("physicalRounds", run.roundsOf("physicalLimit"));
		values.put("asyncRounds", run.roundsOf("limiterAsync"));
		JsonObject row = run.asyncRow("fixed-window", 64);
		values.put("asyncRoundSeconds", (row != null && row.has("roundSeconds"))
				? Format.millis(row.get("roundSeconds").getAsDouble()).replaceAll("\\.?0+$", "") : "?");
		return Template.load("sections/method.md").render(values);
	}

}

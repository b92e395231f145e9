package dev.ratelimit.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

import com.google.gson.JsonObject;
import org.jspecify.annotations.Nullable;

/**
 * The report's sections on what our limiters reach against what bounds them: the asynchronous API from one
 * thread, and the steps from the bare server down to our blocking limiter.
 */
final class AsyncSection {

	private AsyncSection() {
	}

	/** Returns the asynchronous API's section, or {@code null} when the run did not measure it. */
	static @Nullable String asyncApi(RunResults run) {
		if (!run.measurements().has("limiterAsync")) {
			return null;
		}
		StringBuilder rows = new StringBuilder();
		double lettuceAsync = run.series("lettuceAsync", "fixed-window", 64).median();
		for (String system : Contenders.OURS) {
			JsonObject row = run.asyncRow(system, 64);
			if (row == null) {
				continue;
			}
			Stats async = run.async(system, 64);
			rows.append("| ").append(Labels.of(system)).append(" | ").append(async.rateWithRange()).append(" | ")
				.append(Format.ratio(async.median() / run.physicalFor(system, 64).median())).append(" | ")
				.append(Format.ratio(async.median() / lettuceAsync)).append(" | ")
				.append(Format.ratio(async.median() / run.throughput(system, 64).median())).append(" | ")
				.append(AllowedPathSection.asyncLatencies(row)).append(" | ")
				.append(Format.decimal(row.get("redisUsecPerDecision").getAsDouble())).append(" | ")
				.append(Format.decimal(row.get("redisCpuShare").getAsDouble())).append(" | ")
				.append(Format.decimal(row.get("jvmCpuShare").getAsDouble())).append(" |\n");
		}
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("rows", rows);
		StringBuilder batched = new StringBuilder();
		for (String algorithm : Labels.O1) {
			String system = algorithm + Contenders.BATCHING;
			JsonObject row = run.asyncRow(system, 64);
			if (row == null) {
				continue;
			}
			double rate = run.async(system, 64).median();
			double redisCpu = row.get("redisCpuShare").getAsDouble();
			double clientCpu = row.get("jvmCpuShare").getAsDouble();
			JsonObject commands = row.getAsJsonObject("redisCommands");
			long evalsha = (commands != null && commands.has("evalsha")) ? commands.get("evalsha").getAsLong() : 0;
			batched.append("| ").append(Labels.of(algorithm)).append(" | ")
				.append(run.async(system, 64).rateWithRange()).append(" | ")
				.append(Format.ratio(redisCpu)).append(" | ")
				.append(Format.decimal((double) evalsha / Math.max(row.get("decisions").getAsLong(), 1))).append(" | ")
				.append(Format.decimal(redisCpu * 1e6 / rate)).append(" | ")
				.append(Format.decimal(clientCpu * 1e6 / rate)).append(" | ")
				.append(Format.ratio(clientCpu / redisCpu)).append(" | ")
				.append(AllowedPathSection.asyncLatencies(row)).append(" |\n");
		}
		if (!batched.isEmpty()) {
			values.put("batched", true);
			values.put("batchedRows", batched);
		}
		Stats async = run.overhead("decideAsync", "starter");
		if (!Double.isNaN(async.median())) {
			values.put("overhead", true);
			values.put("asyncNanos", Format.number(async.median()));
			values.put("blockingNanos", Format.number(run.overhead("decide", "starter").median()));
		}
		return Template.load("sections/async-api.md").render(values);
	}

	/** Returns the section on what bounds the allowed path: the fixed-window script from the raw socket to our limiter. */
	static String bounds(RunResults run) {
		double physical = run.physical("fixed-window", 64).median();
		double lettuceAsync = run.series("lettuceAsync", "fixed-window", 64).median();
		double blocking = run.throughput(Contenders.LETTUCE_EVALSHA, 64).median();
		double ours = run.throughput("fixed-window", 64).median();
		double seed = run.throughput("seed-fixed-window", 64).median();
		double oursAsync = run.async("fixed-window", 64).median();
		JmhResult oursResult = run.result("fixed-window", 10_000, 64);
		JmhResult seedResult = run.result("seed-fixed-window", 10_000, 64);
		JsonObject oursTrial = (oursResult != null) ? oursResult.trial() : null;
		JsonObject seedTrial = (seedResult != null) ? seedResult.trial() : null;
		JsonObject physicalRow = run.physicalRow("fixed-window", 64);
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("physical", Format.number(physical));
		values.put("lettuceAsync", Format.number(lettuceAsync));
		values.put("lettuceAsyncRatio", Format.ratio(lettuceAsync / physical));
		if (!Double.isNaN(oursAsync)) {
			values.put("oursAsync", Format.number(oursAsync));
			values.put("oursAsyncRatio", Format.ratio(oursAsync / physical));
		}
		values.put("blocking", Format.number(blocking));
		values.put("blockingRatio", Format.ratio(blocking / physical));
		values.put("ours", Format.number(ours));
		values.put("oursRatio", Format.ratio(ours / physical));
		values.put("oursOfBlocking", Format.ratio(ours / blocking));
		if (physicalRow != null) {
			values.put("physicalRedisCpu", Format.decimal(physicalRow.get("redisCpuShare").getAsDouble()));
		}
		if (oursTrial != null) {
			values.put("oursRedisCpu", Format.decimal(oursTrial.get("redisCpuShare").getAsDouble()));
			values.put("oursJvmCpu", Format.decimal(oursTrial.get("jvmCpuShare").getAsDouble()));
		}
		Stats starter = run.overhead("decide", "starter");
		if (!Double.isNaN(starter.median())) {
			values.put("starterNanos", Format.number(starter.median()));
			values.put("bareNanos", Format.number(run.overhead("decide", "bare").median()));
		}
		if (seedTrial != null && oursTrial != null) {
			values.put("seedRedisUsec", Format.decimal(seedTrial.get("redisUsecPerDecision").getAsDouble()));
			values.put("oursRedisUsec", Format.decimal(oursTrial.get("redisUsecPerDecision").getAsDouble()));
		}
		values.put("seed", Format.number(seed));
		values.put("seedOfOurs", Format.ratio(seed / ours));
		return Template.load("sections/bounds.md").render(values);
	}

}

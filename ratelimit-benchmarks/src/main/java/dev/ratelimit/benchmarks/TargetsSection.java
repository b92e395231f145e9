package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import dev.ratelimit.benchmarks.Targets.Target;

/**
 * The report's Targets table: each target of {@code targets.properties} outside the steady state, what was measured
 * and whether it is met.
 */
final class TargetsSection {

	private final RunResults run;

	private final Targets targets;

	private final StringBuilder rows = new StringBuilder();

	private TargetsSection(RunResults run, Targets targets) {
		this.run = run;
		this.targets = targets;
	}

	static String render(RunResults run, Targets targets) {
		TargetsSection section = new TargetsSection(run, targets);
		section.allowedPath();
		section.async();
		section.hotKey();
		section.http("http", "http");
		section.http("httpWebflux", "http-webflux");
		section.keys();
		section.memory();
		return Template.load("sections/targets.md").render(Map.of("rows", section.rows));
	}

	private void row(Target target, String measured, String met) {
		this.rows.append("| ").append(target.label()).append(" | ").append(measured).append(" | ").append(met).append(" |\n");
	}

	private void allowedPath() {
		Target physical = this.targets.get("physical");
		Target bucket4j = this.targets.get("bucket4j");
		Target redisson = this.targets.get("redisson");
		List<String> physicalParts = new ArrayList<>();
		List<String> bucket4jParts = new ArrayList<>();
		List<String> redissonParts = new ArrayList<>();
		boolean physicalMet = true;
		boolean bucket4jMet = true;
		boolean redissonMet = true;
		for (String system : Labels.O1) {
			double ours = this.run.throughput(system, 64).median();
			double limit = this.run.physicalFor(system, 64).median();
			double bucket4jRate = this.run.throughput("bucket4j", 64).median();
			double redissonRate = this.run.throughput("redisson", 64).median();
			physicalMet &= physical.met(ours / limit);
			bucket4jMet &= bucket4j.met(ours / bucket4jRate);
			redissonMet &= redisson.met(ours / redissonRate);
			physicalParts.add(Format.abbreviated(system) + " " + Format.ratio(ours / limit));
			bucket4jParts.add(Format.abbreviated(system) + " " + Format.ratio(ours / bucket4jRate));
			redissonParts.add(Format.abbreviated(system) + " " + Format.ratio(ours / redissonRate));
		}
		row(physical, String.join(", ", physicalParts), Format.yes(physicalMet));
		row(bucket4j, String.join(", ", bucket4jParts), Format.yes(bucket4jMet));
		row(redisson, String.join(", ", redissonParts), Format.yes(redissonMet));
	}

	private void async() {
		Target target = this.targets.get("async");
		List<String> parts = new ArrayList<>();
		boolean met = true;
		boolean measured = false;
		for (String system : Labels.O1) {
			double ratio = this.run.async(system, 64).median() / this.run.physicalFor(system, 64).median();
			JsonObject row = this.run.asyncRow(system, 64);
			long errors = (row != null) ? row.get("errors").getAsLong() : 0;
			measured |= !Double.isNaN(ratio);
			met &= target.met(ratio) && errors == 0;
			parts.add(Format.abbreviated(system) + " " + Format.ratio(ratio)
					+ ((errors > 0) ? " (" + Format.number(errors) + " errors)" : ""));
		}
		row(target, measured ? String.join(", ", parts) : "not measured", measured ? Format.yes(met) : "–");
		Target batching = this.targets.get("async-batching");
		List<String> batchedParts = new ArrayList<>();
		boolean batchedMet = true;
		for (String system : Labels.O1) {
			JsonObject row = this.run.asyncRow(system + Contenders.BATCHING, 64);
			if (row == null) {
				continue;
			}
			double busy = row.get("redisCpuShare").getAsDouble();
			long errors = row.get("errors").getAsLong();
			batchedMet &= batching.met(busy) && errors == 0;
			batchedParts.add(Format.abbreviated(system) + "+b " + Format.ratio(busy)
					+ ((errors > 0) ? " (" + Format.number(errors) + " errors)" : ""));
		}
		if (!batchedParts.isEmpty()) {
			row(batching, String.join(", ", batchedParts), Format.yes(batchedMet));
		}
	}

	private void hotKey() {
		Target cache = this.targets.get("hot-key-cache");
		List<String> cacheParts = new ArrayList<>();
		boolean cacheMet = true;
		for (int threads : new int[] { 8, 64 }) {
			double without = this.run.hotKeyRejections(false, threads).median();
			double with = this.run.hotKeyRejections(true, threads).median();
			cacheMet &= cache.met(with / without);
			cacheParts.add(threads + " threads: " + Format.ratio(with / without));
		}
		row(cache, String.join(", ", cacheParts), Format.yes(cacheMet));
		Target calls = this.targets.get("hot-key-calls");
		List<String> callParts = new ArrayList<>();
		boolean callsMet = true;
		for (JsonElement element : this.run.measurements().getAsJsonObject("hotKey").getAsJsonArray("perSecond")) {
			JsonObject hot = element.getAsJsonObject();
			double periods = hot.get("roundSeconds").getAsDouble();
			double rejectedCalls = Format.numbers(hot.getAsJsonArray("rejectedCallsToRedis")).get(0).doubleValue();
			callsMet &= calls.met(rejectedCalls / periods);
			callParts.add(hot.get("threads").getAsInt() + " threads: " + Format.decimal(rejectedCalls / periods));
		}
		row(calls, String.join(", ", callParts), Format.yes(callsMet));
	}

	private void http(String name, String targetName) {
		Target target = this.targets.get(targetName);
		JsonObject http = this.run.measurement(name);
		if (http == null || !http.has("pooled")) {
			row(target, "not measured" + ((http != null && http.has("skipped")) ? ": " + http.get("skipped").getAsString() : ""), "–");
			return;
		}
		JsonObject pooled = http.getAsJsonObject("pooled");
		double ruleP99 = pooled.get("ruleP99").getAsDouble();
		double noRuleP99 = pooled.get("noRuleP99").getAsDouble();
		double addedP99 = ruleP99 - noRuleP99;
		row(target, Format.millis(addedP99) + " ms (p99 " + Format.millis(ruleP99) + " ms with the rule, " + Format.millis(noRuleP99)
				+ " ms without; all rounds pooled)", Format.yes(target.met(addedP99)));
	}

	private void keys() {
		Target target = this.targets.get("keys-flat");
		List<String> parts = new ArrayList<>();
		boolean flat = true;
		for (String system : this.run.keyCountSystems()) {
			JmhResult small = this.run.result(system, 1000, 64);
			JmhResult large = this.run.result(system, 1_000_000, 64);
			if (small != null && large != null) {
				double change = large.throughput().median() / small.throughput().median();
				flat &= target.met(change);
				parts.add(Format.abbreviated(system) + " " + Format.ratio(change));
			}
		}
		row(target, String.join(", ", parts), Format.yes(flat));
	}

	private void memory() {
		Target target = this.targets.get("memory-constant");
		boolean constant = true;
		List<String> parts = new ArrayList<>();
		for (String system : Labels.O1) {
			long small = this.run.memoryBytes(system, 10);
			long mid = this.run.memoryBytes(system, 1000);
			long large = this.run.memoryBytes(system, 1_000_000);
			long spread = Math.max(small, Math.max(mid, large)) - Math.min(small, Math.min(mid, large));
			constant &= small > 0 && target.met(spread);
			parts.add(Format.abbreviated(system) + " " + small + " / " + mid + " / " + large + " B");
		}
		row(target, String.join(", ", parts), Format.yes(constant));
	}

}

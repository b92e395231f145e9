package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import dev.ratelimit.benchmarks.Targets.Target;

/**
 * The targets of the steady state, each a ratio within one of its tables ({@link SteadyStateResults}), per
 * thread count.
 */
final class SteadyStateTargets {

	private final Targets targets;

	private final StringBuilder rows = new StringBuilder();

	private SteadyStateTargets(Targets targets) {
		this.targets = targets;
	}

	/** Returns the rows of the steady state's targets table. */
	static String rows(SteadyStateResults results, Targets targets) {
		SteadyStateTargets checks = new SteadyStateTargets(targets);
		results.byThreads().forEach(checks::check);
		return checks.rows.toString();
	}

	private void check(int threads, Map<String, SteadyStateResults.Row> r) {
		List<String> o1 = withBatching(Labels.O1);
		SteadyStateResults.Row seed = r.get("seed-fixed-window");
		// issue 17's reference: the seed's script over plain Lettuce (runs before it had only ours)
		SteadyStateResults.Row plain = r.getOrDefault(Contenders.LETTUCE_EVALSHA_SEED, r.get(Contenders.LETTUCE_EVALSHA));
		if (seed == null || plain == null) {
			return;
		}
		row("steady.redis-cpu-fixed", threads, r, List.of("fixed-window", "fixed-window+batching"),
				(v) -> v.redisCpu() / seed.redisCpu());
		row("steady.redis-cpu-o1", threads, r, o1, (v) -> v.redisCpu() / seed.redisCpu());
		row("steady.redis-cpu-log", threads, r, withBatching(List.of("sliding-window-log")), (v) -> v.redisCpu() / seed.redisCpu());
		row("steady.client-cpu", threads, r, o1, (v) -> v.clientCpu() / plain.clientCpu());
		row("steady.throughput-plain", threads, r, o1, (v) -> v.perSecond() / plain.perSecond());
		row("steady.throughput-seed", threads, r, o1, (v) -> v.perSecond() / seed.perSecond());
		SteadyStateResults.Row bucket4j = r.get("bucket4j");
		if (bucket4j != null) {
			row("steady.throughput-bucket4j", threads, r, o1, (v) -> v.perSecond() / bucket4j.perSecond());
		}
		SteadyStateResults.Row redisson = r.get("redisson");
		if (redisson != null) {
			row("steady.throughput-redisson", threads, r, o1, (v) -> v.perSecond() / redisson.perSecond());
		}
		row("steady.batching-physical", threads, r, Labels.O1.stream().map((system) -> system + Contenders.BATCHING).toList(),
				(v) -> v.perSecond() * v.redisCpu() / 1e6);
		row("steady.client-vs-redis", threads, r, o1, (v) -> v.clientCpu() / v.redisCpu());
		row("steady.batching-throughput", threads, r, Labels.O1.stream().map((system) -> system + Contenders.BATCHING).toList(),
				(v) -> v.perSecond() / plain.perSecond());
		StringBuilder p99 = new StringBuilder();
		boolean met = true;
		for (String system : Contenders.OURS) {
			SteadyStateResults.Row off = r.get(system);
			SteadyStateResults.Row on = r.get(system + Contenders.BATCHING);
			if (off != null && on != null) {
				p99.append((p99.length() > 0) ? ", " : "").append(Format.abbreviated(system)).append(' ')
					.append(Format.number(on.p99())).append(" vs ").append(Format.number(off.p99())).append(" µs");
				met &= on.p99() <= off.p99();
			}
		}
		if (p99.length() > 0) {
			append(this.targets.get("steady.batching-p99"), threads, p99, met);
		}
	}

	private void row(String name, int threads, Map<String, SteadyStateResults.Row> results, List<String> systems,
			ToDoubleFunction<SteadyStateResults.Row> ratio) {
		Target target = this.targets.get(name);
		StringBuilder measured = new StringBuilder();
		boolean met = true;
		for (String system : systems) {
			SteadyStateResults.Row values = results.get(system);
			if (values == null) {
				continue;
			}
			double value = ratio.applyAsDouble(values);
			measured.append((measured.length() > 0) ? ", " : "").append(Format.abbreviated(system)).append(' ')
				.append(Format.ratio(value));
			met &= target.met(value);
		}
		if (measured.length() > 0) {
			append(target, threads, measured, met);
		}
	}

	private void append(Target target, int threads, CharSequence measured, boolean met) {
		// unlike the Targets table, a target met is not in bold here: the misses stand out among many rows
		this.rows.append("| ").append(target.label()).append(" | ").append(threads).append(" | ").append(measured)
			.append(" | ").append(met ? "yes" : "**no**").append(" |\n");
	}

	private static List<String> withBatching(List<String> systems) {
		List<String> all = new ArrayList<>();
		for (String system : systems) {
			all.add(system);
			all.add(system + Contenders.BATCHING);
		}
		return all;
	}

}

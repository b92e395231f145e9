package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;
import dev.ratelimit.testsupport.RedisBinary;

/** One script on a redis-server of its own, with its keys filled, and what its rounds measured. */
final class ScriptCostTrial implements AutoCloseable {

	private final String system;

	private final BenchmarkRedis redis;

	private final RespConnection connection;

	private final byte[][] commands = new byte[ScriptCost.KEYS][];

	private final MeasuredScript sent;

	private final String sha;

	private final List<Double> usec = new ArrayList<>();

	private final List<Double> cpu = new ArrayList<>();

	private final Map<String, Long> nested = new TreeMap<>();

	private long measured;

	private ScriptCostTrial(String system, BenchmarkRedis redis, MeasuredScript sent) {
		this.system = system;
		this.redis = redis;
		this.sent = sent;
		this.sha = sent.script().load(redis);
		for (int i = 0; i < ScriptCost.KEYS; i++) {
			this.commands[i] = sent.evalsha(this.sha, new int[] { i });
		}
		this.connection = RespConnection.open(redis.port());
		// every key exists before measuring, as in the benchmarks
		for (int first = 0; first < ScriptCost.KEYS; first += ScriptCost.BATCH) {
			int end = Math.min(first + ScriptCost.BATCH, ScriptCost.KEYS);
			for (int i = first; i < end; i++) {
				this.connection.write(this.commands[i]);
			}
			this.connection.flush();
			for (int i = first; i < end; i++) {
				check(system, this.connection.readOk(), (sent.group() > 1) ? 1 : 0);
			}
		}
	}

	static ScriptCostTrial start(String system, MeasuredScript sent) {
		return start(system, sent, RedisBinary.find());
	}

	static ScriptCostTrial start(String system, MeasuredScript sent, Path binary) {
		BenchmarkRedis redis = BenchmarkRedis.start(binary);
		try {
			return new ScriptCostTrial(system, redis, sent);
		}
		catch (RuntimeException ex) {
			redis.close();
			throw ex;
		}
	}

	void measure(SplittableRandom random, int count) {
		this.redis.admin().call("CONFIG", "RESETSTAT");
		ServerCounters before = this.redis.counters();
		run(random, count);
		ServerCounters after = this.redis.counters();
		this.usec.add(field(this.redis.info("commandstats").get("cmdstat_evalsha"), "usec_per_call") / this.sent.group());
		this.cpu.add((after.cpuSeconds() - before.cpuSeconds()) * 1e6 / count);
		after.callsSince(before).forEach((command, calls) -> {
			if (!command.equals("evalsha") && !command.equals("config")) {
				this.nested.merge(command, calls, Long::sum);
			}
		});
		this.measured += count;
	}

	/** Counts the instructions of {@code count} decisions with callgrind; the row's figure is per decision. */
	ScriptCostRow instructions(SplittableRandom random, int count, Path work) {
		String pid = this.redis.info("server").get("process_id");
		callgrindControl("-z", pid);
		this.redis.admin().call("CONFIG", "RESETSTAT");
		ServerCounters before = this.redis.counters();
		run(random, count);
		ServerCounters after = this.redis.counters();
		callgrindControl("-d", pid);
		long instructions = totals(work.resolve("callgrind." + pid + ".1"));
		if (instructions == 0) {
			throw new IllegalStateException("callgrind counted nothing in evalShaCommand: is the redis-server stripped?");
		}
		after.callsSince(before).forEach((command, calls) -> {
			if (!command.equals("evalsha") && !command.equals("config")) {
				this.nested.merge(command, calls, Long::sum);
			}
		});
		this.measured = count;
		this.usec.add(instructions / (double) count);
		return row();
	}

	private static void callgrindControl(String option, String pid) {
		try {
			Process process = new ProcessBuilder("callgrind_control", option, pid).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (process.waitFor() != 0) {
				throw new IllegalStateException("callgrind_control " + option + " " + pid + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static long totals(Path dump) {
		try {
			for (String line : Files.readAllLines(dump)) {
				if (line.startsWith("totals:")) {
					return Long.parseLong(line.substring("totals:".length()).trim());
				}
			}
			throw new IllegalStateException("No totals in " + dump);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Runs {@code count} decisions (rounded up to whole EVALSHA), {@link ScriptCost#BATCH} of them pipelined at a time. */
	void run(SplittableRandom random, int count) {
		int group = this.sent.group();
		int[] keys = new int[group];
		for (int done = 0; done < count; done += ScriptCost.BATCH) {
			int commands = Math.max((Math.min(ScriptCost.BATCH, count - done) + group - 1) / group, 1);
			for (int i = 0; i < commands; i++) {
				if (group == 1) {
					this.connection.write(this.commands[random.nextInt(this.commands.length)]);
				}
				else {
					for (int c = 0; c < group; c++) {
						keys[c] = random.nextInt(ScriptCost.KEYS);
					}
					this.connection.write(this.sent.evalsha(this.sha, keys));
				}
			}
			this.connection.flush();
			for (int i = 0; i < commands; i++) {
				check(this.system, this.connection.readOk(), (group > 1) ? group : 0);
			}
		}
	}

	ScriptCostRow row() {
		Map<String, Double> perDecision = new LinkedHashMap<>();
		this.nested.forEach((command, calls) -> perDecision.put(command, calls / (double) this.measured));
		return new ScriptCostRow(this.system, Stats.of(this.usec), Stats.of(this.cpu), perDecision);
	}

	@Override
	public void close() {
		try {
			this.connection.close();
		}
		finally {
			this.redis.close();
		}
	}

	/**
	 * Fails unless the reply is an allowed decision, or with {@code calls} above 0 a batch of as many:
	 * this measures the allowed path only.
	 */
	private static void check(String system, @Nullable Object reply, int calls) {
		if (calls > 0) {
			if (!(reply instanceof List<?> replies) || replies.size() != calls) {
				throw new IllegalStateException(system + " answered a batch of " + calls + " with " + reply);
			}
			replies.forEach((one) -> check(system, one, 0));
			return;
		}
		boolean allowed = (reply instanceof Long count) ? count <= Contenders.ALLOWED.limit()
				: (reply instanceof List<?> list && Long.valueOf(1).equals(list.get(0)));
		if (!allowed) {
			throw new IllegalStateException(system + " refused a call on the allowed path: " + reply);
		}
	}

	private static double field(String stat, String name) {
		for (String part : stat.split(",")) {
			if (part.startsWith(name + "=")) {
				return Double.parseDouble(part.substring(name.length() + 1));
			}
		}
		throw new IllegalStateException("No " + name + " in " + stat);
	}

}

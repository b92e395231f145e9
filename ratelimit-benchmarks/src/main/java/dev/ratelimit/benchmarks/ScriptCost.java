package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.testsupport.RedisBinary;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * What one decision costs the Redis server, script by script: each of our five scripts, exactly as
 * our limiter sends it (server time, one permit, the benchmarks' never-reached limit of 1,000,000 per
 * hour), and the seed's fixed-window script, each on a fresh redis-server against 10,000 keys that
 * exist before measuring. The calls are pipelined over one raw connection in batches, so that the
 * client costs the server next to nothing, and every reply is checked to be an allowed decision.
 * Reports per decision the server's own time for the {@code EVALSHA} ({@code INFO commandstats},
 * nested commands included), its CPU ({@code INFO cpu}, user plus system, so reading and writing the
 * socket too), and the commands the script ran ({@code INFO commandstats}); the median of the rounds
 * with their range.
 * <p>
 * Run after {@code ./mvnw -B -q -Pbenchmarks -pl ratelimit-benchmarks -am package -DskipTests}:
 * <pre>
 * java -cp ratelimit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.ScriptCost [calls] [script directory]
 * </pre>
 * {@code calls} is the number of measured decisions per script (200,000 by default), in 20 rounds
 * after a warm-up of one round; the scripts take turns round by round, each in another order, so that
 * load from elsewhere on the machine falls on all of them alike. With a directory, our scripts
 * ({@code prelude.lua} and {@code <algorithm>.lua}) are read from it instead of the class path, with
 * the same arguments: for example the scripts of an earlier commit, extracted with {@code git show},
 * to compare before and after on the same machine. {@code -Dcompare=<directory>} measures the class path's scripts and,
 * labelled with the directory's name, those of the directory, side by side in the same run.
 * {@code -Dscripts=seed-fixed-window,gcra} measures only those. {@code -Dbatch=1} sends the calls one
 * at a time instead of 500 to a batch, so that the CPU figure includes a read and a write of the socket
 * per decision, as for a client that waits for each answer. {@code -Dgroups=1,20} measures each of our
 * scripts also as our batching runner sends it under load: 20 decisions (of 20 random keys) per
 * {@code EVALSHA} of the batch script, each decided on its own; its figures are per decision. The row
 * {@value #FLOOR} is the floor of our fixed window: its three commands alone, with no logic around
 * them. {@code -Dscript-cost.out=<file>} also writes the table there (for {@code Report}).
 * <p>
 * With {@code -Dinstructions=true}, each redis-server runs under Valgrind's callgrind, which counts the
 * instructions the server executes within {@code EVALSHA} (its function {@code evalShaCommand}, nested
 * commands included): a figure that load from elsewhere on the machine cannot move, for comparing
 * scripts on a busy machine. It needs {@code valgrind} and {@code callgrind_control} on the {@code PATH}
 * and a redis-server with symbols (the one shipped with embedded-redis has them); the server runs
 * about 50 times slower, so the default is 10,000 decisions in one round.
 */
public final class ScriptCost {

	private static final int KEYS = 10_000;

	private static final int ROUNDS = 20;

	/** Commands written before the replies are read: {@code -Dbatch=1} sends one at a time. */
	private static final int BATCH = Integer.getInteger("batch", 500);

	private static final String SEED = "seed-fixed-window";

	/**
	 * The floor of our fixed window: the three commands it runs on the allowed path (read the count,
	 * read the TTL that is its clock, charge the permit), with nothing around them, answering as it does.
	 */
	static final String FLOOR = "fixed-window-commands-only";

	private static final String FLOOR_SCRIPT = """
			redis.call('HMGET', KEYS[1], 'n', 's')
			redis.call('PTTL', KEYS[1])
			redis.call('HINCRBY', KEYS[1], 'n', ARGV[2])
			return {1, 0, 0, 0}
			""";

	/** Decisions per EVALSHA: 1 for each script alone, more for the batch script carrying as many. */
	private static final List<Integer> GROUPS = groups(System.getProperty("groups", "1"));

	private ScriptCost() {
	}

	/**
	 * Measures every script; arguments {@code [calls] [script directory]}.
	 * @param args the arguments
	 */
	public static void main(String[] args) {
		boolean instructions = Boolean.getBoolean("instructions");
		int calls = (args.length > 0) ? Integer.parseInt(args[0]) : (instructions ? 10_000 : 200_000);
		Path directory = (args.length > 1) ? Path.of(args[1]) : null;
		List<String> algorithms = new ArrayList<>();
		algorithms.add(SEED);
		algorithms.add(FLOOR);
		algorithms.addAll(Contenders.OURS);
		String only = System.getProperty("scripts");
		if (only != null) {
			algorithms.retainAll(List.of(only.split(",")));
		}
		String compare = System.getProperty("compare");
		List<Spec> systems = new ArrayList<>();
		for (String algorithm : algorithms) {
			for (int group : GROUPS) {
				if (group == 1) {
					systems.add(new Spec(algorithm, algorithm, directory, 1));
					if (compare != null && Contenders.OURS.contains(algorithm)) {
						Path other = Path.of(compare);
						systems.add(new Spec(algorithm + " [" + other.getFileName() + "]", algorithm, other, 1));
					}
				}
				else if (Contenders.OURS.contains(algorithm)) {
					if (directory != null || compare != null) {
						throw new IllegalArgumentException("-Dgroups measures the class path's batch script only: "
								+ "leave out the script directory and -Dcompare");
					}
					systems.add(new Spec(algorithm + " (batched, " + group + " per EVALSHA)", algorithm, null, group));
				}
			}
		}
		if (instructions) {
			List<Row> rows = measureInstructions(systems, calls);
			StringBuilder md = new StringBuilder();
			md.append("Scripts: ").append((directory != null) ? directory : "the class path").append("; ").append(calls)
				.append(" decisions per script, ").append(KEYS).append(" keys, allowed path, server time, under callgrind")
				.append(" (Redis ").append(RedisBinary.version(RedisBinary.find())).append(")\n\n");
			md.append("| script | Redis instructions per decision (EVALSHA) | ÷ seed | commands per decision in the script |\n");
			md.append("|---|---:|---:|---|\n");
			double seed = rows.stream().filter((row) -> row.system().equals(SEED)).mapToDouble((row) -> row.usecPerCall().median())
				.findFirst().orElse(Double.NaN);
			for (Row row : rows) {
				double ratio = row.usecPerCall().median() / seed;
				md.append(String.format(Locale.ROOT, "| %s | %,.0f | %s | %s |%n", row.system(), row.usecPerCall().median(),
						Double.isNaN(ratio) ? "–" : String.format(Locale.ROOT, "%.2f×", ratio), row.commandsText()));
			}
			print(md);
			return;
		}
		List<Row> rows = measure(systems, calls);
		rows.forEach((row) -> System.out.println("[script-cost] " + row.line()));
		StringBuilder md = new StringBuilder();
		md.append("Scripts: ").append((directory != null) ? directory : "the class path").append("; ").append(calls)
			.append(" decisions per script in ").append(ROUNDS).append(" rounds, ").append(BATCH)
			.append(" decisions pipelined at a time, ").append(KEYS).append(" keys, allowed path, server time\n\n");
		md.append("| script | Redis µs per decision (EVALSHA) | Redis CPU µs per decision | ÷ seed (µs / CPU) ")
			.append("| commands per decision in the script |\n");
		md.append("|---|---:|---:|---:|---|\n");
		Row seed = rows.stream().filter((row) -> row.system().equals(SEED)).findFirst().orElse(null);
		for (Row row : rows) {
			md.append(String.format(Locale.ROOT, "| %s | %.2f <sub>%.2f–%.2f</sub> | %.2f <sub>%.2f–%.2f</sub> | %.2f× / %.2f× | %s |%n",
					row.system(), row.usecPerCall().median(), row.usecPerCall().min(), row.usecPerCall().max(),
					row.cpuPerCall().median(), row.cpuPerCall().min(), row.cpuPerCall().max(),
					(seed != null) ? row.usecPerCall().median() / seed.usecPerCall().median() : Double.NaN,
					(seed != null) ? row.cpuPerCall().median() / seed.cpuPerCall().median() : Double.NaN, row.commandsText()));
		}
		print(md);
	}

	/** Prints the table, and with {@code -Dscript-cost.out=<file>} writes it there too (for {@code Report}). */
	private static void print(StringBuilder md) {
		System.out.println();
		System.out.print(md);
		String out = System.getProperty("script-cost.out");
		if (out != null) {
			try {
				Files.writeString(Path.of(out), md);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	private static List<Row> measure(List<Spec> systems, int calls) {
		List<Trial> trials = new ArrayList<>();
		try {
			for (Spec system : systems) {
				trials.add(Trial.start(system.label(), sent(system)));
			}
			SplittableRandom random = new SplittableRandom(17);
			int perRound = calls / ROUNDS;
			for (Trial trial : trials) {
				trial.run(random, perRound);
			}
			for (int round = 0; round < ROUNDS; round++) {
				// interleaved, each round in another order, so that load from elsewhere on the machine
				// falls on every script alike
				for (int i = 0; i < trials.size(); i++) {
					trials.get((round + i) % trials.size()).measure(random, perRound);
				}
			}
			return trials.stream().map(Trial::row).toList();
		}
		finally {
			trials.forEach(Trial::close);
		}
	}

	private static List<Row> measureInstructions(List<Spec> systems, int calls) {
		Path work;
		Path wrapper;
		try {
			work = Files.createTempDirectory("script-cost-");
			wrapper = work.resolve("redis-server-under-callgrind");
			Files.writeString(wrapper, "#!/bin/sh\nexec valgrind -q --tool=callgrind --collect-atstart=no "
					+ "--toggle-collect=evalShaCommand --callgrind-out-file=" + work + "/callgrind.%p "
					+ RedisBinary.find() + " \"$@\"\n");
			if (!wrapper.toFile().setExecutable(true)) {
				throw new IllegalStateException("Could not make " + wrapper + " executable");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<Row> rows = new ArrayList<>();
		for (Spec system : systems) {
			// one at a time: each server takes a CPU while callgrind runs it
			try (Trial trial = Trial.start(system.label(), sent(system), wrapper)) {
				SplittableRandom random = new SplittableRandom(17);
				trial.run(random, Math.max(calls / 5, 1));
				Row row = trial.instructions(random, calls, work);
				System.out.println("[script-cost] " + row.line());
				rows.add(row);
			}
		}
		return rows;
	}

	private static List<Integer> groups(String text) {
		List<Integer> groups = new ArrayList<>();
		for (String part : text.split(",")) {
			int group = Integer.parseInt(part.trim());
			if (group < 1 || group > 128) {
				throw new IllegalArgumentException("-Dgroups takes decisions per EVALSHA from 1 to 128 (the runner's "
						+ "largest batch), not " + group);
			}
			groups.add(group);
		}
		return List.copyOf(groups);
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

	private static Sent sent(Spec spec) {
		String system = spec.algorithm();
		Path directory = spec.directory();
		if (system.equals(SEED)) {
			// the seed's limiter sends its script with the window in seconds, under rate:fixed:<id>
			return new Sent(new OurContender.SentScript(Contenders.seedFixedWindowScript(),
					List.of(Long.toString(Contenders.ALLOWED.window().toSeconds()))), "rate:fixed:", 1, 0);
		}
		if (spec.group() > 1) {
			return batched(system, spec.group());
		}
		if (system.equals(FLOOR)) {
			OurContender.SentScript fixed = OurContender.SentScript.capture("fixed-window", Contenders.ALLOWED);
			return new Sent(new OurContender.SentScript(FLOOR_SCRIPT, fixed.args()), "floor:", 1, 0);
		}
		OurContender.SentScript captured = OurContender.SentScript.capture(system, Contenders.ALLOWED);
		String script = (directory != null) ? read(directory.resolve("prelude.lua")) + read(directory.resolve(system + ".lua"))
				: captured.script();
		return new Sent(new OurContender.SentScript(script, captured.args()),
				keyPrefix(OurContender.limiter(system, (s, k, a) -> List.of()).build()), 1, 0);
	}

	/** What the limiter puts before an id in its Redis key. */
	private static String keyPrefix(RedisRateLimiter limiter) {
		String key = limiter.redisKey("user-0");
		return key.substring(0, key.length() - "user-0".length());
	}

	/**
	 * The batch script our runner sends under load, carrying {@code group} calls of one algorithm's
	 * script: read from the limiter's own package, as the runner finds them.
	 */
	private static Sent batched(String system, int group) {
		AtomicReference<RedisScript<?>> script = new AtomicReference<>();
		AtomicReference<List<String>> args = new AtomicReference<>();
		RedisRateLimiter limiter = OurContender.limiter(system, (s, k, a) -> {
			script.set(s);
			args.set(List.copyOf(a));
			return List.of(1L, 0L, 0L, 0L);
		}).build();
		limiter.tryAcquire("user-0", Contenders.within(system, Contenders.ALLOWED));
		try {
			Class<?> scripts = Class.forName("dev.ratelimit.redis.RedisScripts");
			Method index = scripts.getDeclaredMethod("batchIndex", RedisScript.class);
			index.setAccessible(true);
			Field batch = scripts.getDeclaredField("BATCH");
			batch.setAccessible(true);
			int scriptIndex = (int) index.invoke(null, script.get());
			if (scriptIndex == 0) {
				throw new IllegalStateException(system + "'s script is not among the batch script's");
			}
			return new Sent(new OurContender.SentScript(((RedisScript<?>) batch.get(null)).getScriptAsString(), args.get()),
					keyPrefix(limiter), group, scriptIndex);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Could not read the batch script from dev.ratelimit.redis.RedisScripts", ex);
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * What a trial sends: the script, the prefix of its keys, and with {@code group} above 1 the batch
	 * script carrying that many calls of the script at {@code index} in it.
	 */
	private record Sent(OurContender.SentScript script, String keyPrefix, int group, int index) {

		/** Encodes one EVALSHA carrying the calls of these keys. */
		byte[] evalsha(String sha, int[] keys) {
			if (this.group == 1) {
				return this.script.evalsha(sha, this.keyPrefix + "user-" + keys[0]);
			}
			List<String> args = this.script.args();
			List<String> parts = new ArrayList<>(6 + keys.length * 4 + args.size());
			parts.addAll(List.of("EVALSHA", sha, Integer.toString(keys.length)));
			for (int key : keys) {
				parts.add(this.keyPrefix + "user-" + key);
			}
			// as the runner sends them: calls with the same arguments share one list of them
			parts.add(Integer.toString(keys.length));
			for (int c = 0; c < keys.length; c++) {
				parts.addAll(List.of(Integer.toString(this.index), "1", "1"));
			}
			parts.addAll(List.of("1", Integer.toString(args.size())));
			parts.addAll(args);
			return RespConnection.encode(parts.toArray(new String[0]));
		}

	}

	/**
	 * A script to measure: its label in the table, its algorithm, where to read it from (null: the
	 * class path), and its decisions per EVALSHA.
	 */
	private record Spec(String label, String algorithm, @Nullable Path directory, int group) {
	}

	/** One script on a redis-server of its own, with its keys filled, and what its rounds measured. */
	private static final class Trial implements AutoCloseable {

		private final String system;

		private final BenchmarkRedis redis;

		private final RespConnection connection;

		private final byte[][] commands = new byte[KEYS][];

		private final Sent sent;

		private final String sha;

		private final List<Double> usec = new ArrayList<>();

		private final List<Double> cpu = new ArrayList<>();

		private final Map<String, Long> nested = new TreeMap<>();

		private long measured;

		private Trial(String system, BenchmarkRedis redis, Sent sent) {
			this.system = system;
			this.redis = redis;
			this.sent = sent;
			this.sha = sent.script().load(redis);
			for (int i = 0; i < KEYS; i++) {
				this.commands[i] = sent.evalsha(this.sha, new int[] { i });
			}
			this.connection = RespConnection.open(redis.port());
			// every key exists before measuring, as in the benchmarks
			for (int first = 0; first < KEYS; first += BATCH) {
				int end = Math.min(first + BATCH, KEYS);
				for (int i = first; i < end; i++) {
					this.connection.write(this.commands[i]);
				}
				this.connection.flush();
				for (int i = first; i < end; i++) {
					check(system, this.connection.readOk(), (sent.group() > 1) ? 1 : 0);
				}
			}
		}

		static Trial start(String system, Sent sent) {
			return start(system, sent, RedisBinary.find());
		}

		static Trial start(String system, Sent sent, Path binary) {
			BenchmarkRedis redis = BenchmarkRedis.start(binary);
			try {
				return new Trial(system, redis, sent);
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
		Row instructions(SplittableRandom random, int count, Path work) {
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

		/** Runs {@code count} decisions (rounded up to whole EVALSHA), {@link #BATCH} of them pipelined at a time. */
		void run(SplittableRandom random, int count) {
			int group = this.sent.group();
			int[] keys = new int[group];
			for (int done = 0; done < count; done += BATCH) {
				int commands = Math.max((Math.min(BATCH, count - done) + group - 1) / group, 1);
				for (int i = 0; i < commands; i++) {
					if (group == 1) {
						this.connection.write(this.commands[random.nextInt(this.commands.length)]);
					}
					else {
						for (int c = 0; c < group; c++) {
							keys[c] = random.nextInt(KEYS);
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

		Row row() {
			Map<String, Double> perDecision = new LinkedHashMap<>();
			this.nested.forEach((command, calls) -> perDecision.put(command, calls / (double) this.measured));
			return new Row(this.system, Stats.of(this.usec), Stats.of(this.cpu), perDecision);
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

	}

	/**
	 * One script's figures: per decision, the server's µs in {@code EVALSHA} (instructions under
	 * callgrind, where {@code cpuPerCall} is empty), its CPU µs, and the commands the script ran.
	 */
	private record Row(String system, Stats usecPerCall, Stats cpuPerCall, Map<String, Double> commands) {

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

}

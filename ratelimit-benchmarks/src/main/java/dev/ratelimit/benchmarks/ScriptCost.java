package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.testsupport.RedisBinary;

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

	/** The keys of each script's trial, all filled before measuring. */
	static final int KEYS = 10_000;

	private static final int ROUNDS = 20;

	/** Commands written before the replies are read: {@code -Dbatch=1} sends one at a time. */
	static final int BATCH = Integer.getInteger("batch", 500);

	/** The seed's fixed-window script, which the others are compared with. */
	static final String SEED = "seed-fixed-window";

	/**
	 * The floor of our fixed window: the three commands it runs on the allowed path (read the count,
	 * read the TTL that is its clock, charge the permit), with nothing around them, answering as it does.
	 */
	static final String FLOOR = "fixed-window-commands-only";

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
			List<ScriptCostRow> rows = measureInstructions(systems, calls);
			StringBuilder md = new StringBuilder();
			md.append("Scripts: ").append((directory != null) ? directory : "the class path").append("; ").append(calls)
				.append(" decisions per script, ").append(KEYS).append(" keys, allowed path, server time, under callgrind")
				.append(" (Redis ").append(RedisBinary.version(RedisBinary.find())).append(")\n\n");
			md.append("| script | Redis instructions per decision (EVALSHA) | ÷ seed | commands per decision in the script |\n");
			md.append("|---|---:|---:|---|\n");
			double seed = rows.stream().filter((row) -> row.system().equals(SEED)).mapToDouble((row) -> row.usecPerCall().median())
				.findFirst().orElse(Double.NaN);
			for (ScriptCostRow row : rows) {
				double ratio = row.usecPerCall().median() / seed;
				md.append(String.format(Locale.ROOT, "| %s | %,.0f | %s | %s |%n", row.system(), row.usecPerCall().median(),
						Double.isNaN(ratio) ? "–" : String.format(Locale.ROOT, "%.2f×", ratio), row.commandsText()));
			}
			print(md);
			return;
		}
		List<ScriptCostRow> rows = measure(systems, calls);
		rows.forEach((row) -> System.out.println("[script-cost] " + row.line()));
		StringBuilder md = new StringBuilder();
		md.append("Scripts: ").append((directory != null) ? directory : "the class path").append("; ").append(calls)
			.append(" decisions per script in ").append(ROUNDS).append(" rounds, ").append(BATCH)
			.append(" decisions pipelined at a time, ").append(KEYS).append(" keys, allowed path, server time\n\n");
		md.append("| script | Redis µs per decision (EVALSHA) | Redis CPU µs per decision | ÷ seed (µs / CPU) ")
			.append("| commands per decision in the script |\n");
		md.append("|---|---:|---:|---:|---|\n");
		ScriptCostRow seed = rows.stream().filter((row) -> row.system().equals(SEED)).findFirst().orElse(null);
		for (ScriptCostRow row : rows) {
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

	private static List<ScriptCostRow> measure(List<Spec> systems, int calls) {
		List<ScriptCostTrial> trials = new ArrayList<>();
		try {
			for (Spec system : systems) {
				trials.add(ScriptCostTrial.start(system.label(), MeasuredScript.of(system)));
			}
			SplittableRandom random = new SplittableRandom(17);
			int perRound = calls / ROUNDS;
			for (ScriptCostTrial trial : trials) {
				trial.run(random, perRound);
			}
			for (int round = 0; round < ROUNDS; round++) {
				// interleaved, each round in another order, so that load from elsewhere on the machine
				// falls on every script alike
				for (int i = 0; i < trials.size(); i++) {
					trials.get((round + i) % trials.size()).measure(random, perRound);
				}
			}
			return trials.stream().map(ScriptCostTrial::row).toList();
		}
		finally {
			trials.forEach(ScriptCostTrial::close);
		}
	}

	private static List<ScriptCostRow> measureInstructions(List<Spec> systems, int calls) {
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
		List<ScriptCostRow> rows = new ArrayList<>();
		for (Spec system : systems) {
			// one at a time: each server takes a CPU while callgrind runs it
			try (ScriptCostTrial trial = ScriptCostTrial.start(system.label(), MeasuredScript.of(system), wrapper)) {
				SplittableRandom random = new SplittableRandom(17);
				trial.run(random, Math.max(calls / 5, 1));
				ScriptCostRow row = trial.instructions(random, calls, work);
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
	 * A script to measure: its label in the table, its algorithm, where to read it from (null: the
	 * class path), and its decisions per EVALSHA.
	 */
	record Spec(String label, String algorithm, @Nullable Path directory, int group) {
	}

}

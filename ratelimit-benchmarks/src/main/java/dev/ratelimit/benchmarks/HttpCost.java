package dev.ratelimit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.google.gson.GsonBuilder;

import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;
import dev.ratelimit.testsupport.RedisServerProcess;

/**
 * What a rule costs an HTTP request: the smallest servlet, WebFlux and Spring Cloud Gateway applications a user
 * would write ({@code dev.ratelimit.benchmarks.apps}), each in a JVM of its own pinned to one CPU
 * ({@code -Dapp.cpu}, default 0), with the starter and without it (the same class path less ratelimit's jars), and
 * the gateway once with Spring Cloud Gateway's own {@code RedisRateLimiter} instead; redis-server, the gateway's
 * upstream and the closed-loop load ({@link ClosedLoopLoad}, 16 connections) on the CPU this JVM runs on. Every
 * target is warmed up, then measured in rounds that alternate between the targets, so that a slow spell of the
 * machine falls on all of them; each round reads the application's CPU from {@code /proc} and Redis's from
 * {@code INFO cpu}. Beside them, the yardstick: a plain Lettuce asynchronous {@code EVALSHA} ({@link LettuceClientCost})
 * in a JVM pinned as the applications are. With {@code -Dbench.http-profile=true} (the default) each application is
 * recorded with JFR over the measured rounds, and {@link JfrSummary} says where its time went.
 * Arguments: {@code <output directory> <apps class path file> <benchmark classes directory> <benchmarks jar>}.
 */
public final class HttpCost {

	static final int CONNECTIONS = 16;

	private static final int KEYS = 1000;

	/** The least warm-up passes over a stack's targets, {@code -Dbench.http-warmup-passes}. */
	private static final int WARM_UP_PASSES = Measurements.QUICK ? 1 : Integer.getInteger("bench.http-warmup-passes", 5);

	/** The most warm-up passes. */
	private static final int MAX_WARM_UP_PASSES = Measurements.QUICK ? 1 : 10;

	/** How long each target is loaded in a warm-up pass. */
	private static final Duration WARM_UP_STEP = Duration.ofSeconds(Measurements.QUICK ? 2 : 10);

	/** Arguments added to the applications with the starter, to compare settings: {@code -Dbench.http-app-args}. */
	private static final List<String> APP_ARGS = listed("bench.http-app-args", "\\s+");

	/**
	 * JVM options added to every application, to compare settings of the stacks themselves:
	 * {@code -Dbench.http-app-jvm-args="-Dbench.shared-loops=true -Dreactor.netty.ioWorkerCount=1"}.
	 */
	private static final List<String> APP_JVM_ARGS = listed("bench.http-app-jvm-args", "\\s+");

	private static final Duration ROUND = Duration.ofSeconds(Measurements.QUICK ? 2 : Long.getLong("bench.http-round-seconds", 8));

	private static final int ROUNDS = Measurements.QUICK ? 2 : Integer.getInteger("bench.http-rounds", 5);

	private static final boolean PROFILE = Boolean.parseBoolean(System.getProperty("bench.http-profile", "true"));

	/** The stacks to measure, {@code -Dbench.http-stacks=servlet,webflux,webflux-shared,gateway}; all when not set. */
	private static final List<String> STACKS = listed("bench.http-stacks", ",");

	/**
	 * The targets to load, {@code -Dbench.http-targets=webflux /hot,webflux-plain /open} (labels as in the report), for a
	 * profile of those alone; all when not set.
	 */
	private static final List<String> TARGETS = listed("bench.http-targets", ",");

	private HttpCost() {
	}

	/** The non-blank parts of a system property, split by {@code separator}; none when it is not set. */
	private static List<String> listed(String property, String separator) {
		return List.of(System.getProperty(property, "").split(separator)).stream()
			.filter((part) -> !part.isBlank())
			.toList();
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of(args[0]);
		List<String> jars = List.of(Files.readString(Path.of(args[1])).strip().split(java.io.File.pathSeparator));
		String classes = args[2];
		String benchmarksJar = args[3];
		String appCpu = System.getProperty("app.cpu", "0");
		Files.createDirectories(out);
		List<Process> started = new java.util.concurrent.CopyOnWriteArrayList<>();
		// stopped when this JVM is, by a signal too (finally blocks do not run then)
		Runtime.getRuntime().addShutdownHook(new Thread(() -> started.forEach(Process::destroyForcibly)));
		try (BenchmarkRedis redis = BenchmarkRedis.start()) {
			Launcher launcher = new Launcher(out, jars, classes, appCpu, redis.url());
			int upstreamPort = RedisServerProcess.freePort();
			Process upstream = launcher.start("upstream", HttpApps.Stack.GATEWAY, false, null,
					"dev.ratelimit.benchmarks.apps.upstream.Upstream", List.of(String.valueOf(upstreamPort)), upstreamPort);
			started.add(upstream);
			Process lettuce = launcher.pinned(List.of(launcher.java(), "-Xmx512m", "-cp", benchmarksJar,
					LettuceClientCost.class.getName(), redis.url(), String.valueOf(CONNECTIONS)), "lettuce-client-cost", true);
			started.add(lettuce);
			PrintWriter lettuceIn = new PrintWriter(lettuce.getOutputStream(), true, StandardCharsets.US_ASCII);
			BufferedReader lettuceOut = new BufferedReader(new InputStreamReader(lettuce.getInputStream(), StandardCharsets.US_ASCII));
			expect(lettuceOut.readLine(), "ready");
			List<Map<String, Object>> rounds = new ArrayList<>();
			for (int r = 0; r < ROUNDS; r++) {
				rounds.add(new LinkedHashMap<>());
			}
			List<HttpApps.Target> allTargets = new ArrayList<>();
			Map<String, String> profiles = new LinkedHashMap<>();
			Map<String, Object> warmUps = new LinkedHashMap<>();
			Path jfc = out.resolve("sampling.jfc").toAbsolutePath();
			try (var in = HttpCost.class.getResourceAsStream("/benchmarks/sampling.jfc")) {
				// -Dbench.http-sample-period=1 samples every millisecond instead of every 10, for a profile of one stack
				String period = System.getProperty("bench.http-sample-period", "10");
				Files.writeString(jfc, new String(in.readAllBytes(), StandardCharsets.UTF_8)
					.replace("<setting name=\"period\">10 ms</setting>", "<setting name=\"period\">" + period + " ms</setting>"));
			}
			// one stack at a time, so that the JVMs sharing the application CPU are those compared, and the JIT of
			// the others does not take it from them
			for (List<HttpApps.App> group : HttpApps.groups(upstreamPort)) {
				String stack = group.get(0).stack().label();
				if (!STACKS.isEmpty() && !STACKS.contains(stack)) {
					continue;
				}
				List<HttpApps.Running> apps = new ArrayList<>();
				for (HttpApps.App app : group) {
					apps.add(launcher.start(app));
					started.add(apps.get(apps.size() - 1).process());
				}
				List<HttpApps.Target> targets = HttpApps.targets(apps)
					.stream()
					.filter((target) -> TARGETS.isEmpty() || TARGETS.contains(target.label()))
					.toList();
				allTargets.addAll(targets);
				for (HttpApps.Target target : targets) {
					target.check();
				}
				warmUps.put(stack, warmUp(targets));
				lettuceRound(lettuceIn, lettuceOut, WARM_UP_STEP.multipliedBy(WARM_UP_PASSES));
				for (int r = 0; r < ROUNDS; r++) {
					Map<String, Object> round = rounds.get(r);
					for (HttpApps.Target target : targets) {
						Map<String, Object> row = measure(redis, upstream, target);
						round.put(target.label(), row);
						Measurements.log("HTTP cost round " + (r + 1) + " " + target.label() + " " + row);
					}
					round.put(HttpCostReport.LETTUCE + "@" + stack, lettuceRound(lettuceIn, lettuceOut, ROUND));
				}
				if (PROFILE) {
					// a pass of its own after the measured rounds, with execution samples only (sampling.jfc)
					for (HttpApps.Running app : apps) {
						launcher.jcmd(app.process(), "JFR.start", "name=bench", "settings=" + jfc,
								"filename=" + out.resolve(app.app().name() + ".jfr").toAbsolutePath());
					}
					for (HttpApps.Target target : targets) {
						target.load(ROUND);
					}
				}
				for (HttpApps.Running app : apps) {
					if (PROFILE) {
						launcher.jcmd(app.process(), "JFR.stop", "name=bench");
						Path recording = out.resolve(app.app().name() + ".jfr");
						if (app.app().starter() && Files.exists(recording)) {
							profiles.put(app.app().name(), JfrSummary.summarize(recording));
						}
					}
					stop(app.process());
				}
			}
			Map<String, Object> results = Measurements.row("connections", CONNECTIONS, "keys", KEYS, "warmUp", warmUps,
					"roundSeconds", ROUND.toSeconds(), "appCpu", appCpu, "redisVersion", redis.version(), "targets",
					allTargets.stream().map(HttpApps.Target::describe).toList(), "rounds", rounds);
			Files.writeString(out.resolve("http-cost.json"), new GsonBuilder().setPrettyPrinting().create().toJson(results));
			Files.writeString(out.resolve("http-cost.md"), HttpCostReport.markdown(results, profiles));
			Measurements.log("HTTP cost: written to " + out.resolve("http-cost.md"));
		}
		finally {
			for (Process process : started) {
				stop(process);
			}
		}
	}

	/**
	 * Warms the targets of a stack up in passes that alternate between them, as the rounds do (an application's
	 * JIT goes on compiling while the others are loaded): at least {@link #WARM_UP_PASSES} passes, then until no
	 * target answers more than 10% faster than in every earlier pass (its JIT has stopped making it faster; the
	 * machine's own noise moves a pass by 20%), or {@link #MAX_WARM_UP_PASSES} passes. Returns the passes it took,
	 * whether it settled, and each target's rate in every pass.
	 */
	private static Map<String, Object> warmUp(List<HttpApps.Target> targets) {
		Map<String, List<Double>> rates = new LinkedHashMap<>();
		int pass = 0;
		boolean settled = false;
		while (!settled && pass < MAX_WARM_UP_PASSES) {
			pass++;
			settled = pass >= WARM_UP_PASSES;
			for (HttpApps.Target target : targets) {
				double rate = target.load(WARM_UP_STEP).perSecond();
				List<Double> previous = rates.computeIfAbsent(target.label(), (label) -> new ArrayList<>());
				double best = previous.stream().mapToDouble(Double::doubleValue).max().orElse(0);
				settled &= rate <= 1.10 * best;
				previous.add(rate);
			}
			Measurements.log("HTTP cost warm-up pass " + pass + " " + rates);
		}
		return Measurements.row("passes", pass, "stepSeconds", WARM_UP_STEP.toSeconds(), "settled", settled, "rates", rates);
	}

	private static Map<String, Object> measure(BenchmarkRedis redis, Process upstream, HttpApps.Target target) {
		ServerCounters before = redis.counters();
		ProcessCounters appBefore = ProcessCounters.of(target.app().process());
		long upstreamBefore = cpuNanos(upstream);
		ClosedLoopLoad.Result result = target.load(ROUND);
		ProcessCounters app = ProcessCounters.of(target.app().process()).since(appBefore);
		long cpu = app.cpuNanos();
		long upstreamCpu = cpuNanos(upstream) - upstreamBefore;
		ServerCounters after = redis.counters();
		double requests = Math.max(1, result.responses);
		return Measurements.row("perSecond", result.perSecond(), "appCpuMicros", cpu / 1000.0 / requests,
				"appKernelShare", (cpu > 0) ? (double) app.systemNanos() / cpu : 0.0, "appSwitches", app.switches() / requests,
				"redisCpuMicros", (after.cpuSeconds() - before.cpuSeconds()) * 1e6 / requests, "upstreamCpuMicros",
				upstreamCpu / 1000.0 / requests, "p50", result.percentileMillis(0.50), "p99", result.percentileMillis(0.99),
				"responses", result.responses, "errors", result.errors, "reconnects", result.reconnects, "evalsha",
				after.callsSince(before, "evalsha"), "redisCommands", after.callsSince(before));
	}

	private static void stop(Process process) throws InterruptedException {
		if (!process.isAlive()) {
			return;
		}
		process.destroy();
		if (!process.waitFor(20, TimeUnit.SECONDS)) {
			process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

	private static Map<String, Object> lettuceRound(PrintWriter in, BufferedReader out, Duration duration) throws IOException {
		in.println("run " + duration.toMillis());
		String[] reply = out.readLine().split(" ");
		long calls = Long.parseLong(reply[0]);
		long cpu = Long.parseLong(reply[1]);
		if (Long.parseLong(reply[2]) > 0) {
			throw new IllegalStateException("The plain Lettuce yardstick had " + reply[2] + " failed calls: see lettuce-client-cost.log");
		}
		Map<String, Object> row = Measurements.row("perSecond", calls * 1e9 / duration.toNanos(), "clientCpuMicros",
				cpu / 1000.0 / Math.max(1, calls));
		Measurements.log("HTTP cost: plain Lettuce async EVALSHA " + row);
		return row;
	}

	private static void expect(String line, String expected) {
		if (!expected.equals(line)) {
			throw new IllegalStateException("Expected '" + expected + "', got '" + line + "'");
		}
	}

	static long cpuNanos(Process process) {
		return process.info().totalCpuDuration().orElseThrow(
				() -> new IllegalStateException("No CPU time for process " + process.pid())).toNanos();
	}

	/** Starts the processes of the scenario: applications on their CPU, with their own class path. */
	static final class Launcher {

		private final Path out;

		private final List<String> jars;

		private final String classes;

		private final String appCpu;

		private final String redisUrl;

		Launcher(Path out, List<String> jars, String classes, String appCpu, String redisUrl) {
			this.out = out;
			this.jars = jars;
			this.classes = classes;
			this.appCpu = appCpu;
			this.redisUrl = redisUrl;
		}

		String java() {
			return Path.of(System.getProperty("java.home"), "bin", "java").toString();
		}

		HttpApps.Running start(HttpApps.App app) throws IOException, InterruptedException {
			int port = RedisServerProcess.freePort();
			List<String> arguments = new ArrayList<>(List.of("--server.port=" + port, "--server.address=127.0.0.1",
					"--spring.data.redis.url=" + this.redisUrl, "--logging.level.root=WARN"));
			arguments.addAll(app.arguments());
			if (app.starter()) {
				arguments.addAll(APP_ARGS);
			}
			return new HttpApps.Running(app, start(app.name(), app.stack(), app.starter(), app, app.mainClass(), arguments, port), port);
		}

		Process start(String name, HttpApps.Stack stack, boolean starter, HttpApps.App app, String mainClass,
				List<String> arguments, int port) throws IOException, InterruptedException {
			String classpath = this.classes + java.io.File.pathSeparator
					+ String.join(java.io.File.pathSeparator, HttpApps.classpath(this.jars, stack, starter));
			List<String> command = new ArrayList<>(List.of(java(), "-Xms256m", "-Xmx1g",
					// Tomcat's and Reactor's stacks are deeper than JFR's default of 64 frames
					"-XX:FlightRecorderOptions:stackdepth=256"));
			if (app != null) {
				command.addAll(app.jvmArguments());
			}
			command.addAll(APP_JVM_ARGS);
			command.addAll(List.of("-cp", classpath, mainClass));
			command.addAll(arguments);
			Process process = pinned(command, name, app != null);
			try {
				awaitPort(process, port, name);
			}
			catch (RuntimeException | InterruptedException ex) {
				process.destroyForcibly();
				throw ex;
			}
			return process;
		}

		Process pinned(List<String> command, String name, boolean onAppCpu) throws IOException {
			List<String> full = new ArrayList<>();
			if (onAppCpu && !this.appCpu.isEmpty()) {
				full.addAll(List.of("taskset", "-c", this.appCpu));
			}
			full.addAll(command);
			ProcessBuilder builder = new ProcessBuilder(full).redirectError(this.out.resolve(name + ".log").toFile());
			if (!name.equals("lettuce-client-cost")) {
				builder.redirectOutput(this.out.resolve(name + ".out").toFile());
			}
			return builder.start();
		}

		void jcmd(Process process, String... arguments) throws IOException, InterruptedException {
			List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
					String.valueOf(process.pid())));
			command.addAll(List.of(arguments));
			Process jcmd = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.out.resolve("jcmd.log").toFile()))
				.start();
			if (!jcmd.waitFor(60, TimeUnit.SECONDS)) {
				jcmd.destroyForcibly();
				throw new IllegalStateException("jcmd " + String.join(" ", arguments) + " did not end within 60 s");
			}
		}

		private static void awaitPort(Process process, int port, String name) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
			while (System.nanoTime() < deadline) {
				if (!process.isAlive()) {
					throw new IllegalStateException(name + " exited with " + process.exitValue() + ": see its .log");
				}
				try (Socket socket = new Socket("127.0.0.1", port)) {
					return;
				}
				catch (IOException ex) {
					Thread.sleep(200);
				}
			}
			throw new IllegalStateException(name + " did not listen on port " + port + " within 120 s");
		}

	}

}

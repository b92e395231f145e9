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

	private static final Duration WARM_UP = Duration.ofSeconds(Measurements.QUICK ? 3 : Long.getLong("bench.http-warmup-seconds", 40));

	private static final Duration ROUND = Duration.ofSeconds(Measurements.QUICK ? 2 : Long.getLong("bench.http-round-seconds", 8));

	private static final int ROUNDS = Measurements.QUICK ? 2 : Integer.getInteger("bench.http-rounds", 5);

	private static final boolean PROFILE = Boolean.parseBoolean(System.getProperty("bench.http-profile", "true"));

	private HttpCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of(args[0]);
		List<String> jars = List.of(Files.readString(Path.of(args[1])).strip().split(java.io.File.pathSeparator));
		String classes = args[2];
		String benchmarksJar = args[3];
		String appCpu = System.getProperty("app.cpu", "0");
		Files.createDirectories(out);
		List<Process> started = new ArrayList<>();
		try (BenchmarkRedis redis = BenchmarkRedis.start()) {
			Launcher launcher = new Launcher(out, jars, classes, appCpu, redis.url());
			int upstreamPort = RedisServerProcess.freePort();
			Process upstream = launcher.start("upstream", HttpApps.Stack.GATEWAY, false, null,
					"dev.ratelimit.benchmarks.apps.upstream.Upstream", List.of(String.valueOf(upstreamPort)), upstreamPort);
			started.add(upstream);
			List<HttpApps.Running> apps = new ArrayList<>();
			for (HttpApps.App app : HttpApps.all(upstreamPort)) {
				apps.add(launcher.start(app));
				started.add(apps.get(apps.size() - 1).process());
			}
			Process lettuce = launcher.pinned(List.of(launcher.java(), "-Xmx512m", "-cp", benchmarksJar,
					LettuceClientCost.class.getName(), redis.url(), String.valueOf(CONNECTIONS)), "lettuce-client-cost", true);
			started.add(lettuce);
			PrintWriter lettuceIn = new PrintWriter(lettuce.getOutputStream(), true, StandardCharsets.US_ASCII);
			BufferedReader lettuceOut = new BufferedReader(new InputStreamReader(lettuce.getInputStream(), StandardCharsets.US_ASCII));
			expect(lettuceOut.readLine(), "ready");
			List<HttpApps.Target> targets = HttpApps.targets(apps);
			for (HttpApps.Target target : targets) {
				target.check();
			}
			Measurements.log("HTTP cost: warm-up, " + WARM_UP.toSeconds() + " s per target, " + targets.size() + " targets");
			for (HttpApps.Target target : targets) {
				target.load(WARM_UP);
			}
			lettuceRound(lettuceIn, lettuceOut, WARM_UP);
			if (PROFILE) {
				for (HttpApps.Running app : apps) {
					launcher.jcmd(app.process(), "JFR.start", "name=bench", "settings=profile",
							"filename=" + out.resolve(app.app().name() + ".jfr").toAbsolutePath());
				}
			}
			List<Map<String, Object>> rounds = new ArrayList<>();
			for (int r = 0; r < ROUNDS; r++) {
				Map<String, Object> round = new LinkedHashMap<>();
				for (HttpApps.Target target : targets) {
					ServerCounters before = redis.counters();
					long cpuBefore = cpuNanos(target.app().process());
					long upstreamBefore = cpuNanos(upstream);
					ClosedLoopLoad.Result result = target.load(ROUND);
					long cpu = cpuNanos(target.app().process()) - cpuBefore;
					long upstreamCpu = cpuNanos(upstream) - upstreamBefore;
					ServerCounters after = redis.counters();
					double requests = Math.max(1, result.responses);
					Map<String, Object> row = Measurements.row("perSecond", result.perSecond(), "appCpuMicros",
							cpu / 1000.0 / requests, "redisCpuMicros", (after.cpuSeconds() - before.cpuSeconds()) * 1e6 / requests,
							"upstreamCpuMicros", upstreamCpu / 1000.0 / requests, "p50", result.percentileMillis(0.50),
							"p99", result.percentileMillis(0.99), "responses", result.responses, "errors", result.errors,
							"reconnects", result.reconnects, "evalsha", after.callsSince(before, "evalsha"),
							"redisCommands", after.callsSince(before));
					round.put(target.label(), row);
					Measurements.log("HTTP cost round " + (r + 1) + " " + target.label() + " " + row);
				}
				round.put(HttpCostReport.LETTUCE, lettuceRound(lettuceIn, lettuceOut, ROUND));
				rounds.add(round);
			}
			if (PROFILE) {
				for (HttpApps.Running app : apps) {
					launcher.jcmd(app.process(), "JFR.stop", "name=bench");
				}
			}
			Map<String, Object> results = Measurements.row("connections", CONNECTIONS, "keys", KEYS, "warmUpSeconds",
					WARM_UP.toSeconds(), "roundSeconds", ROUND.toSeconds(), "appCpu", appCpu, "redisVersion", redis.version(),
					"targets", targets.stream().map(HttpApps.Target::describe).toList(), "rounds", rounds);
			Files.writeString(out.resolve("http-cost.json"), new GsonBuilder().setPrettyPrinting().create().toJson(results));
			Map<String, String> profiles = new LinkedHashMap<>();
			if (PROFILE) {
				for (HttpApps.Running app : apps) {
					Path recording = out.resolve(app.app().name() + ".jfr");
					if (app.app().starter() && Files.exists(recording)) {
						profiles.put(app.app().name(), JfrSummary.summarize(recording));
					}
				}
			}
			Files.writeString(out.resolve("http-cost.md"), HttpCostReport.markdown(results, profiles));
			Measurements.log("HTTP cost: written to " + out.resolve("http-cost.md"));
		}
		finally {
			for (Process process : started) {
				process.destroy();
			}
			for (Process process : started) {
				if (!process.waitFor(20, TimeUnit.SECONDS)) {
					process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
		}
	}

	private static Map<String, Object> lettuceRound(PrintWriter in, BufferedReader out, Duration duration) throws IOException {
		in.println("run " + duration.toMillis());
		String[] reply = out.readLine().split(" ");
		long calls = Long.parseLong(reply[0]);
		long cpu = Long.parseLong(reply[1]);
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
			return new HttpApps.Running(app, start(app.name(), app.stack(), app.starter(), app, app.mainClass(), arguments, port), port);
		}

		Process start(String name, HttpApps.Stack stack, boolean starter, HttpApps.App app, String mainClass,
				List<String> arguments, int port) throws IOException, InterruptedException {
			String classpath = this.classes + java.io.File.pathSeparator
					+ String.join(java.io.File.pathSeparator, HttpApps.classpath(this.jars, stack, starter));
			List<String> command = new ArrayList<>(List.of(java(), "-Xms256m", "-Xmx1g", "-cp", classpath, mainClass));
			command.addAll(arguments);
			Process process = pinned(command, name, app != null);
			awaitPort(process, port, name);
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

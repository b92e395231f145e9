package dev.ratelimit.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.testsupport.RedisServerProcess;

/**
 * A sample application in a JVM of its own, under a fixed request rate over a few keep-alive
 * connections on loopback; each connection alternates between an endpoint without a rule and one with
 * a rule whose limit is never reached, so that both see the same load. Latency counts from when a
 * request was due, not from when it was sent, so that a stall is never hidden. The same load runs
 * against the servlet sample (the rules in a servlet filter and interceptor) and the WebFlux sample
 * (the rules in a {@code WebFilter}).
 */
final class HttpScenario {

	private static final int CONNECTIONS = 8;

	private static final int RATE = 1000;

	/** 20 s, or {@code -Dbench.http-warmup-seconds} (a slow or shared machine needs longer); 3 s with QUICK. */
	private static final long WARM_UP_NANOS = TimeUnit.SECONDS
		.toNanos(Measurements.QUICK ? 3 : Long.getLong("bench.http-warmup-seconds", 20));

	private static final long ROUND_NANOS = TimeUnit.SECONDS.toNanos(Measurements.QUICK ? 2 : 6);

	private static final int ROUNDS = Measurements.QUICK ? 2 : 5;

	private final BenchmarkRedis redis;

	private final Application application;

	private final Path out;

	HttpScenario(BenchmarkRedis redis, Application application, Path out) {
		this.redis = redis;
		this.application = application;
		this.out = out;
	}

	Map<String, Object> run() throws InterruptedException {
		Application application = this.application;
		int port = RedisServerProcess.freePort();
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java, "-jar", application.jar().toString(),
				"--server.port=" + port, "--server.address=127.0.0.1", "--spring.data.redis.url=" + this.redis.url(),
				"--logging.level.root=WARN"));
		command.addAll(application.arguments());
		String more = System.getProperty("bench.app-args", "").strip();
		if (!more.isEmpty()) {
			// to compare settings, such as --ratelimit.batching.enabled=false
			command.addAll(List.of(more.split("\\s+")));
		}
		Process app;
		try {
			app = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.out.resolve(application.name() + ".log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + application.name(), ex);
		}
		try {
			Response first = awaitStarted(app, port, application);
			Response ruled = awaitDecision(port, application);
			if (first.headers().contains("ratelimit-policy:") || !ruled.headers().contains("ratelimit-policy:")) {
				throw new IllegalStateException("Expected a rule on " + application.rulePath() + " only, got headers "
						+ first.headers() + " and " + ruled.headers());
			}
			Measurements.log("HTTP warm-up against " + application.name() + " on port " + port);
			load(port, application, WARM_UP_NANOS);
			List<Map<String, Object>> rounds = new ArrayList<>();
			List<long[]> allNoRule = new ArrayList<>();
			List<long[]> allRule = new ArrayList<>();
			for (int r = 0; r < ROUNDS; r++) {
				long[][] latencies = load(port, application, ROUND_NANOS);
				allNoRule.add(latencies[0]);
				allRule.add(latencies[1]);
				Map<String, Object> round = Measurements.row("noRuleP50", percentile(latencies[0], 0.50),
						"noRuleP99", percentile(latencies[0], 0.99), "ruleP50", percentile(latencies[1], 0.50),
						"ruleP99", percentile(latencies[1], 0.99), "requests", latencies[0].length + latencies[1].length,
						"errors", latencies[2].length);
				Measurements.log("HTTP round " + round);
				rounds.add(round);
			}
			long[] noRule = concat(allNoRule);
			long[] rule = concat(allRule);
			Map<String, Object> pooled = Measurements.row("noRuleP50", percentile(noRule, 0.50), "noRuleP99",
					percentile(noRule, 0.99), "ruleP50", percentile(rule, 0.50), "ruleP99", percentile(rule, 0.99),
					"noRuleRequests", noRule.length, "ruleRequests", rule.length);
			return Measurements.row("application", application.name(), "jar", application.jar().toString(), "pooled",
					pooled, "connections", CONNECTIONS, "ratePerSecond", RATE, "roundSeconds",
					TimeUnit.NANOSECONDS.toSeconds(ROUND_NANOS), "warmUpSeconds", TimeUnit.NANOSECONDS.toSeconds(WARM_UP_NANOS),
					"noRulePath", application.noRulePath(), "rulePath", application.rulePath(), "rounds", rounds);
		}
		finally {
			app.destroy();
			if (!app.waitFor(10, TimeUnit.SECONDS)) {
				app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
	}

	private static Response awaitStarted(Process app, int port, Application application) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		while (System.nanoTime() < deadline) {
			if (!app.isAlive()) {
				throw new IllegalStateException(application.name() + " exited with " + app.exitValue());
			}
			try (Client client = new Client(port)) {
				Response response = client.get(application.noRulePath(), "check");
				if (response.status() == 200) {
					return response;
				}
			}
			catch (UncheckedIOException ex) {
				// not listening yet
			}
			Thread.sleep(200);
		}
		throw new IllegalStateException(application.name() + " did not answer on port " + port + " within 90s");
	}

	/**
	 * Asks the path with the rule until Redis decides it: while the application's JVM is cold, or the
	 * machine busy, a first decision can outlast the limiter's timeout and the request passes without
	 * rate-limit headers (fail-open). Returns the first response with them, or the last one after 30 s.
	 */
	private static Response awaitDecision(int port, Application application) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		try (Client client = new Client(port)) {
			while (true) {
				Response response = client.get(application.rulePath(), "check");
				if (response.headers().contains("ratelimit-policy:") || System.nanoTime() > deadline) {
					return response;
				}
				Thread.sleep(200);
			}
		}
	}

	/** Returns the latencies in microseconds: without rule, with rule, and one entry per error. */
	private static long[][] load(int port, Application application, long nanos) throws InterruptedException {
		long intervalNanos = TimeUnit.SECONDS.toNanos(1) * CONNECTIONS / RATE;
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
		List<Thread> threads = new ArrayList<>();
		long[][][] perConnection = new long[CONNECTIONS][][];
		for (int c = 0; c < CONNECTIONS; c++) {
			int connection = c;
			Thread thread = new Thread(() -> {
				LatencyLog noRule = new LatencyLog();
				LatencyLog rule = new LatencyLog();
				LatencyLog errors = new LatencyLog();
				SplittableRandom random = new SplittableRandom(connection);
				try (Client client = new Client(port)) {
					long due = start + connection * intervalNanos / CONNECTIONS;
					for (long i = 0; due < start + nanos; i++, due += intervalNanos) {
						long wait = due - System.nanoTime();
						if (wait > 0) {
							LockSupport.parkNanos(wait);
						}
						boolean ruled = (i % 2) == 1;
						Response response;
						try {
							response = client.get(ruled ? application.rulePath() : application.noRulePath(),
									"key-" + random.nextInt(10_000));
						}
						catch (UncheckedIOException ex) {
							response = new Response(0, "");
						}
						long micros = (System.nanoTime() - due) / 1000;
						if (response.status() != 200) {
							errors.add(micros);
						}
						else {
							(ruled ? rule : noRule).add(micros);
						}
					}
				}
				perConnection[connection] = new long[][] { noRule.toArray(), rule.toArray(), errors.toArray() };
			}, "http-load-" + c);
			threads.add(thread);
			thread.start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		long[][] merged = new long[3][];
		for (int kind = 0; kind < 3; kind++) {
			LatencyLog all = new LatencyLog();
			for (long[][] connection : perConnection) {
				for (long micros : connection[kind]) {
					all.add(micros);
				}
			}
			merged[kind] = all.toArray();
		}
		return merged;
	}

	/** Returns the values of every part, in order. */
	static long[] concat(List<long[]> parts) {
		LatencyLog all = new LatencyLog();
		for (long[] part : parts) {
			for (long value : part) {
				all.add(value);
			}
		}
		return all.toArray();
	}

	/** Returns a percentile of latencies in microseconds, in milliseconds. */
	static double percentile(long[] micros, double p) {
		if (micros.length == 0) {
			return Double.NaN;
		}
		long[] sorted = micros.clone();
		Arrays.sort(sorted);
		int index = (int) Math.ceil(p * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1000.0;
	}

	private static final class LatencyLog {

		private long[] values = new long[1024];

		private int size;

		void add(long value) {
			if (this.size == this.values.length) {
				this.values = Arrays.copyOf(this.values, this.size * 2);
			}
			this.values[this.size++] = value;
		}

		long[] toArray() {
			return Arrays.copyOf(this.values, this.size);
		}

	}

	/**
	 * A sample application under load: the rule and the endpoints the scenario needs, set up by
	 * command-line arguments over the application's own configuration.
	 *
	 * @param name the application, for the log file and the results
	 * @param jar its executable jar
	 * @param rulePath a path with a rule keyed by {@code X-Api-Key}, whose limit is never reached
	 * @param noRulePath a path with no rule
	 * @param arguments the arguments that set the rules up, besides the port, address and Redis URL
	 */
	record Application(String name, Path jar, String rulePath, String noRulePath, List<String> arguments) {

		/**
		 * Returns the servlet sample: the partner rule (per {@code X-Api-Key}) with a limit never
		 * reached, the greeting rule moved away, its own embedded Redis off.
		 * @param jar the sample-app jar
		 * @return the application
		 */
		static Application servlet(Path jar) {
			return new Application("sample-app", jar, "/api/partner/quote", "/api/greeting",
					List.of("--sample.embedded-redis.enabled=false", "--ratelimit.rules.partner.limit=100000000",
							"--ratelimit.rules.partner.window=1h", "--ratelimit.rules.greeting.paths=/bench/unused"));
		}

		/**
		 * Returns the WebFlux sample set up as the servlet one: its tenant rule keyed by
		 * {@code X-Api-Key} (the sample reads {@code X-Tenant} through a key-resolver bean) with a limit
		 * never reached, the greeting rule moved away, its own embedded Redis off.
		 * @param jar the sample-webflux jar
		 * @return the application
		 */
		static Application webflux(Path jar) {
			return new Application("sample-webflux", jar, "/api/tenant/orders", "/api/greeting",
					List.of("--sample.embedded-redis.enabled=false", "--ratelimit.rules.tenant.key=header:X-Api-Key",
							"--ratelimit.rules.tenant.limit=100000000", "--ratelimit.rules.tenant.window=1h",
							"--ratelimit.rules.greeting.paths=/bench/unused"));
		}

	}

	/**
	 * A response: status and the header block in lower case.
	 */
	record Response(int status, String headers) {
	}

	/**
	 * An HTTP/1.1 keep-alive client over one socket, enough for Tomcat's and Reactor Netty's replies: a
	 * Content-Length or a chunked body.
	 */
	static final class Client implements AutoCloseable {

		private final int port;

		private final String host;

		private @Nullable Socket socket;

		private @Nullable OutputStream out;

		private @Nullable InputStream in;

		Client(int port) {
			this.port = port;
			this.host = "127.0.0.1:" + port;
			connect();
		}

		private void connect() {
			try {
				Socket socket = new Socket();
				socket.setTcpNoDelay(true);
				socket.connect(new InetSocketAddress("127.0.0.1", this.port), 2000);
				socket.setSoTimeout(10_000);
				this.socket = socket;
				this.out = socket.getOutputStream();
				this.in = new BufferedInputStream(socket.getInputStream(), 8192);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		/** Sends a request and reads its response; reconnects when Tomcat closed the connection. */
		Response get(String path, String apiKey) {
			if (this.socket == null) {
				connect();
			}
			try {
				this.out.write(("GET " + path + " HTTP/1.1\r\nHost: " + this.host + "\r\nX-Api-Key: " + apiKey
						+ "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
				this.out.flush();
				String statusLine = line();
				int status = Integer.parseInt(statusLine.split(" ")[1]);
				StringBuilder headers = new StringBuilder();
				long length = -1;
				boolean chunked = false;
				boolean close = false;
				for (String header = line(); !header.isEmpty(); header = line()) {
					String lower = header.toLowerCase(Locale.ROOT);
					headers.append(lower).append('\n');
					if (lower.startsWith("content-length:")) {
						length = Long.parseLong(lower.substring(15).trim());
					}
					else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
						chunked = true;
					}
					else if (lower.startsWith("connection:") && lower.contains("close")) {
						// Tomcat closes a keep-alive connection after 100 requests by default
						close = true;
					}
				}
				if (chunked) {
					for (long size = Long.parseLong(line().trim(), 16); size > 0; size = Long.parseLong(line().trim(), 16)) {
						this.in.skipNBytes(size);
						line();
					}
					line();
				}
				else if (length > 0) {
					this.in.skipNBytes(length);
				}
				if (close) {
					close();
				}
				return new Response(status, headers.toString());
			}
			catch (IOException ex) {
				close();
				throw new UncheckedIOException(ex);
			}
		}

		private String line() throws IOException {
			StringBuilder builder = new StringBuilder(64);
			int b;
			while ((b = this.in.read()) != '\n') {
				if (b < 0) {
					throw new IOException("Connection closed");
				}
				if (b != '\r') {
					builder.append((char) b);
				}
			}
			return builder.toString();
		}

		@Override
		public void close() {
			Socket current = this.socket;
			this.socket = null;
			if (current != null) {
				try {
					current.close();
				}
				catch (IOException ex) {
					// closing anyway
				}
			}
		}

	}

}

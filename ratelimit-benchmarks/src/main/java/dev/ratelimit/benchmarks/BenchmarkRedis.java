package dev.ratelimit.benchmarks;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisServerProcess;

/**
 * A redis-server child process on 127.0.0.1 for one benchmark trial, with a raw connection of its own
 * for {@code INFO}, {@code MEMORY USAGE} and pre-filling keys; stopped through its process handle,
 * also when the JVM exits without a tear-down.
 */
public final class BenchmarkRedis implements AutoCloseable {

	private final RedisServerProcess server;

	private final Thread shutdownHook;

	private final RespConnection admin;

	private BenchmarkRedis(RedisServerProcess server) {
		this.server = server;
		this.shutdownHook = new Thread(server::stop, "stop-benchmark-redis");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
		this.admin = RespConnection.open(server.port());
	}

	/**
	 * Starts a redis-server: the one on the {@code PATH}, else the binary shipped with embedded-redis.
	 * @return the running server
	 */
	public static BenchmarkRedis start() {
		return start(RedisBinary.find());
	}

	/**
	 * Starts the given executable as the redis-server, for example a wrapper that runs it under a
	 * profiler.
	 * @param binary the executable, which takes redis-server's arguments
	 * @return the running server
	 */
	public static BenchmarkRedis start(Path binary) {
		return new BenchmarkRedis(RedisServerProcess.start(binary));
	}

	/**
	 * Returns the port the server listens on, on 127.0.0.1.
	 * @return the port
	 */
	public int port() {
		return this.server.port();
	}

	/**
	 * Returns the server's {@code redis://} URL.
	 * @return the URL
	 */
	public String url() {
		return this.server.url();
	}

	/**
	 * Returns the admin connection, for raw commands.
	 * @return the connection
	 */
	public RespConnection admin() {
		return this.admin;
	}

	/**
	 * Returns one section of {@code INFO} as a map of its fields.
	 * @param section the section, for example {@code commandstats}
	 * @return the fields in the server's order
	 */
	public synchronized Map<String, String> info(String section) {
		String text = new String((byte[]) this.admin.call("INFO", section), java.nio.charset.StandardCharsets.UTF_8);
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : text.split("\r\n")) {
			int colon = line.indexOf(':');
			if (!line.startsWith("#") && colon > 0) {
				fields.put(line.substring(0, colon), line.substring(colon + 1));
			}
		}
		return fields;
	}

	/**
	 * Returns a snapshot of the server's counters: calls per command, microseconds spent in commands,
	 * and CPU seconds used.
	 * @return the snapshot
	 */
	public ServerCounters counters() {
		Map<String, Long> calls = new LinkedHashMap<>();
		long usec = 0;
		long scriptUsec = 0;
		for (Map.Entry<String, String> entry : info("commandstats").entrySet()) {
			String command = entry.getKey().substring("cmdstat_".length());
			for (String part : entry.getValue().split(",")) {
				if (part.startsWith("calls=")) {
					calls.put(command, Long.parseLong(part.substring(6)));
				}
				else if (part.startsWith("usec=")) {
					usec += Long.parseLong(part.substring(5));
					if (command.equals("evalsha") || command.equals("eval")) {
						scriptUsec += Long.parseLong(part.substring(5));
					}
				}
			}
		}
		Map<String, String> cpu = info("cpu");
		double cpuSeconds = Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
		return new ServerCounters(calls, usec, scriptUsec, cpuSeconds, System.nanoTime());
	}

	/**
	 * Returns the server's version.
	 * @return the version, such as {@code 6.2.6}
	 */
	public String version() {
		return info("server").get("redis_version");
	}

	/**
	 * Stops the server through its process handle.
	 */
	@Override
	public void close() {
		try {
			this.admin.close();
		}
		catch (UncheckedIOException ex) {
			// the server is stopped anyway
		}
		this.server.stop();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// already shutting down: the hook stops the server, which is harmless twice
		}
	}

	/**
	 * Counters of the server at one instant.
	 *
	 * @param calls calls per command name, for example {@code evalsha}
	 * @param usec microseconds the server spent executing commands
	 * @param scriptUsec of those, the microseconds in {@code EVALSHA} and {@code EVAL}, the commands their
	 * scripts run included
	 * @param cpuSeconds CPU seconds (user and system) the server process used
	 * @param nanoTime when the snapshot was taken, on this JVM's monotonic clock
	 */
	public record ServerCounters(Map<String, Long> calls, long usec, long scriptUsec, double cpuSeconds, long nanoTime) {

		/**
		 * Returns the calls made between {@code earlier} and this snapshot, {@code INFO} excluded.
		 * @param earlier the earlier snapshot
		 * @return calls per command, only commands that were called
		 */
		public Map<String, Long> callsSince(ServerCounters earlier) {
			Map<String, Long> delta = new LinkedHashMap<>();
			this.calls.forEach((command, count) -> {
				long d = count - earlier.calls.getOrDefault(command, 0L);
				if (d > 0 && !command.equals("info")) {
					delta.put(command, d);
				}
			});
			return delta;
		}

		/**
		 * Returns the calls of one command between {@code earlier} and this snapshot.
		 * @param earlier the earlier snapshot
		 * @param command the command, such as {@code evalsha}
		 * @return the count
		 */
		public long callsSince(ServerCounters earlier, String command) {
			return this.calls.getOrDefault(command, 0L) - earlier.calls.getOrDefault(command, 0L);
		}

	}

}

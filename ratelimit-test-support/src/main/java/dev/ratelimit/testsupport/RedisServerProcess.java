package dev.ratelimit.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} child process listening on 127.0.0.1 only, with persistence off, stopped
 * through its own process handle.
 */
public final class RedisServerProcess implements AutoCloseable {

	/** The only address the servers started here listen on. */
	public static final String HOST = "127.0.0.1";

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

	/**
	 * How long a server may take to accept a connection and answer {@code PING}: a server that is not there refuses
	 * at once; a live one on a loaded machine may take seconds.
	 */
	private static final int ANSWER_MILLIS = 5_000;

	private static final int ATTEMPTS = 5;

	private final Process process;

	private final int port;

	private final int tlsPort;

	private final Path workDir;

	private RedisServerProcess(Process process, int port, int tlsPort, Path workDir) {
		this.process = process;
		this.port = port;
		this.tlsPort = tlsPort;
		this.workDir = workDir;
	}

	/**
	 * Starts {@code binary} on a free port and waits until it answers {@code PING}.
	 * @param binary the {@code redis-server} executable
	 * @param extraArgs further {@code --name value} arguments, for example cluster settings
	 * @return the running server
	 */
	public static RedisServerProcess start(Path binary, String... extraArgs) {
		return retried(() -> start(binary, freePort(), extraArgs));
	}

	/**
	 * Starts {@code binary} on {@code port} and waits until it answers {@code PING}.
	 * @param binary the {@code redis-server} executable
	 * @param port the port to listen on
	 * @param extraArgs further {@code --name value} arguments
	 * @return the running server
	 */
	public static RedisServerProcess start(Path binary, int port, String... extraArgs) {
		return launch(binary, port, 0, null, extraArgs);
	}

	/**
	 * Starts {@code binary} on free ports, serving TLS with {@code tls} on one and plain connections on the
	 * other (for {@code PING} and administration), and waits until it answers {@code PING}.
	 * @param binary the {@code redis-server} executable, built with TLS
	 * @param tls the certificate and key to serve
	 * @param extraArgs further {@code --name value} arguments, for example {@code --user}
	 * @return the running server
	 */
	public static RedisServerProcess startWithTls(Path binary, RedisTlsFiles tls, String... extraArgs) {
		return retried(() -> {
			int tlsPort = freePort();
			List<String> args = new ArrayList<>(tls.serverArguments(tlsPort));
			args.addAll(List.of(extraArgs));
			return launch(binary, freePort(), tlsPort, null, args.toArray(String[]::new));
		});
	}

	/**
	 * Starts {@code binary} on a free port with a configuration file, written into the server's own
	 * working directory and passed as the first argument, and waits until it answers {@code PING}. For
	 * servers that must rewrite their configuration, such as a Sentinel ({@code --sentinel}).
	 * @param binary the {@code redis-server} executable
	 * @param config the configuration file's content
	 * @param extraArgs further {@code --name value} arguments, for example {@code --sentinel}
	 * @return the running server
	 */
	public static RedisServerProcess startWithConfigFile(Path binary, String config, String... extraArgs) {
		return retried(() -> launch(binary, freePort(), 0, config, extraArgs));
	}

	/**
	 * Runs {@code start} until it starts a server, at most five times, each time on the port it picks.
	 * @param start starts a server on a port that was free a moment ago
	 * @return the running server
	 */
	static RedisServerProcess retried(Supplier<RedisServerProcess> start) {
		IllegalStateException last = null;
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			try {
				return start.get();
			}
			catch (IllegalStateException ex) {
				// most likely another process took the free port between probing and binding it
				last = ex;
			}
		}
		throw last;
	}

	private static RedisServerProcess launch(Path binary, int port, int tlsPort, @Nullable String config,
			String... extraArgs) {
		Path workDir;
		List<String> command = new ArrayList<>(List.of(binary.toString()));
		try {
			workDir = Files.createTempDirectory("ratelimit-redis-" + port + "-");
			if (config != null) {
				Path configFile = workDir.resolve("redis.conf");
				Files.writeString(configFile, config, StandardCharsets.UTF_8);
				command.add(configFile.toString());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST, "--protected-mode", "yes",
				"--daemonize", "no", "--save", "", "--appendonly", "no", "--dir", workDir.toString()));
		command.addAll(List.of(extraArgs));
		Path log = workDir.resolve("redis.log");
		Process process;
		try {
			process = new ProcessBuilder(command).directory(workDir.toFile())
				.redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + binary, ex);
		}
		RedisServerProcess server = new RedisServerProcess(process, port, tlsPort, workDir);
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				String output = readQuietly(log);
				server.stop();
				throw new IllegalStateException("redis-server exited on port " + port + ": " + output);
			}
			if (ping(HOST, port)) {
				return server;
			}
			try {
				process.waitFor(50, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				server.stop();
				throw new IllegalStateException("Interrupted while starting redis-server", ex);
			}
		}
		server.stop();
		throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
				+ STARTUP_TIMEOUT.toSeconds() + "s");
	}

	/**
	 * Returns whether a Redis server at {@code host:port} answers {@code PING} within five seconds.
	 * @param host the host
	 * @param port the port
	 * @return {@code true} when it answered {@code +PONG}
	 */
	public static boolean ping(String host, int port) {
		return "+PONG".equals(pingReply(host, port));
	}

	/**
	 * Returns whether a Redis server listens at {@code host:port}: it answers {@code PING} within five
	 * seconds, with {@code +PONG} or with an error such as {@code -NOAUTH} when it wants a password.
	 * @param host the host
	 * @param port the port
	 * @return {@code true} when a Redis server answered
	 */
	public static boolean answers(String host, int port) {
		String reply = pingReply(host, port);
		return reply.startsWith("+") || reply.startsWith("-");
	}

	private static String pingReply(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), ANSWER_MILLIS);
			socket.setSoTimeout(ANSWER_MILLIS);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			return new String(in.readNBytes(5), StandardCharsets.US_ASCII);
		}
		catch (IOException ex) {
			return "";
		}
	}

	/**
	 * Returns a port that was free on 127.0.0.1 a moment ago.
	 * @return the port
	 */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Returns the port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Returns the port the server serves TLS on.
	 * @return the port, or 0 when the server was started without TLS
	 */
	public int tlsPort() {
		return this.tlsPort;
	}

	/**
	 * Returns the {@code redis://} URL of the server.
	 * @return the URL
	 */
	public String url() {
		return "redis://" + HOST + ":" + this.port;
	}

	/**
	 * Returns whether the process is still running.
	 * @return {@code true} while it runs
	 */
	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Returns the process handle, for tests that must stop the server abruptly.
	 * @return the process handle
	 */
	public ProcessHandle handle() {
		return this.process.toHandle();
	}

	/**
	 * Stops the process through its handle (SIGTERM, then SIGKILL after five seconds) and deletes its
	 * working directory.
	 */
	public void stop() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
		deleteQuietly(this.workDir);
	}

	@Override
	public void close() {
		stop();
	}

	private static String readQuietly(Path file) {
		try {
			return Files.readString(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(no output)";
		}
	}

	private static void deleteQuietly(Path dir) {
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind is harmless
		}
	}

}

package dev.ratelimit.testsupport;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;

import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The one real Redis server of a test run, found or started on first use and stopped when the JVM
 * exits. Sources, in order: the URL in {@value #URL_VARIABLE}; Testcontainers {@code redis:7-alpine}
 * when a Docker engine answers; a {@code redis-server} on the {@code PATH}; the binary shipped in the
 * {@code com.github.codemonstur:embedded-redis} artifact. The system property
 * {@value RedisBinary#SELECTION_PROPERTY} overrides them all with one binary, so that a suite can run against
 * each Redis version in turn.
 */
public final class RedisTestServer {

	/** The environment variable that points the tests at an existing Redis server. */
	public static final String URL_VARIABLE = "RATELIMIT_TEST_REDIS_URL";

	private static @Nullable RedisTestServer shared;

	private final RedisURI uri;

	private final String source;

	private @Nullable LettuceConnectionFactory connectionFactory;

	private @Nullable StringRedisTemplate template;

	private RedisTestServer(RedisURI uri, String source) {
		this.uri = uri;
		this.source = source;
	}

	/**
	 * Returns the Redis server of this test run, finding or starting it on first call.
	 * @return the server
	 */
	public static synchronized RedisTestServer shared() {
		if (shared == null) {
			String selection = System.getProperty(RedisBinary.SELECTION_PROPERTY);
			shared = (selection != null && !selection.isBlank()) ? selected(selection.strip())
					: locate(System.getenv(URL_VARIABLE), DockerRedis::startIfDockerAnswers);
			// one line per test JVM, so that a build log says which Redis each run was tested against
			System.out.println(shared.announcement());
			Runtime.getRuntime().addShutdownHook(new Thread(shared::closeConnections, "ratelimit-redis-client-stop"));
		}
		return shared;
	}

	static RedisTestServer locate(@Nullable String url, Supplier<Optional<RedisTestServer>> docker) {
		if (url != null && !url.isBlank()) {
			return new RedisTestServer(RedisURI.create(url.strip()), URL_VARIABLE);
		}
		return docker.get().orElseGet(() -> {
			Optional<Path> onPath = RedisBinary.onPath();
			Path binary = onPath.orElseGet(RedisBinary::embedded);
			return started(binary, onPath.isPresent() ? "redis-server on PATH (" + binary + ")"
					: "redis-server from embedded-redis");
		});
	}

	private static RedisTestServer selected(String selection) {
		Path binary = RedisBinary.selected(selection)
			.orElseThrow(() -> new IllegalStateException(RedisBinary.SELECTION_PROPERTY + "=" + selection
					+ " but no redis-server is on the PATH: install one (apt-get install redis-server, as .ci/run does)"));
		return started(binary, "redis-server " + RedisBinary.version(binary) + " (" + selection + ", " + binary + ")");
	}

	private static RedisTestServer started(Path binary, String source) {
		RedisServerProcess process = RedisServerProcess.start(binary);
		Runtime.getRuntime().addShutdownHook(new Thread(process::stop, "ratelimit-redis-server-stop"));
		return new RedisTestServer(RedisURI.create(process.url()), source);
	}

	/**
	 * Returns the host of the server.
	 * @return the host
	 */
	public String host() {
		return this.uri.getHost();
	}

	/**
	 * Returns the port of the server.
	 * @return the port
	 */
	public int port() {
		return this.uri.getPort();
	}

	/**
	 * Returns the URL of the server, in the form {@code spring.data.redis.url} takes.
	 * @return the URL
	 */
	public String url() {
		return this.uri.toURI().toString();
	}

	/**
	 * Returns the line a test JVM prints when it first finds its server, saying which it uses.
	 * @return the line, such as {@code ratelimit tests use Redis at redis://127.0.0.1:41234 (redis-server on PATH
	 * (/usr/bin/redis-server))}
	 */
	public String announcement() {
		return "ratelimit tests use Redis at " + this;
	}

	/**
	 * Returns where the server came from, for test logs.
	 * @return a short description
	 */
	public String source() {
		return this.source;
	}

	/**
	 * Returns a new, started connection factory for the server; the caller destroys it.
	 * @return the connection factory
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		// host, port, database and credentials as Spring Data Redis reads them (Lettuce 7 dropped the URI's own
		// username and password getters)
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				LettuceConnectionFactory.createRedisConfiguration(this.uri));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Returns a template shared by the tests of this run, connected to the server.
	 * @return the template
	 */
	public synchronized StringRedisTemplate template() {
		if (this.template == null) {
			this.connectionFactory = newConnectionFactory();
			StringRedisTemplate created = new StringRedisTemplate(this.connectionFactory);
			created.afterPropertiesSet();
			this.template = created;
		}
		return this.template;
	}

	/**
	 * Makes the server hold every script and write it receives ({@code CLIENT PAUSE WRITE}) until the returned pause
	 * is closed ({@code CLIENT UNPAUSE}), or for {@code atMost} should it never be: a call made meanwhile is late
	 * for as long as the test needs it to be, however fast or loaded the machine, and the test waits only for what it
	 * checks. Reads, {@code PING} and new connections' handshakes still go through. Sent on the shared template's
	 * open connection, so that the pause starts at once.
	 * @param atMost when the server resumes on its own, the most a test that never closes the pause waits
	 * @return the pause, to close as soon as the server need no longer be late
	 */
	public Pause pauseWrites(Duration atMost) {
		clientCommand("PAUSE", Long.toString(atMost.toMillis()), "WRITE");
		return () -> clientCommand("UNPAUSE");
	}

	private void clientCommand(String... args) {
		byte[][] bytes = new byte[args.length][];
		for (int i = 0; i < args.length; i++) {
			bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
		}
		template().execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT", bytes));
	}

	/**
	 * Returns how many scripts the server has run so far: {@code EVALSHA} calls, and {@code EVAL} calls
	 * where it did not know the script yet, from {@code INFO commandstats}.
	 * @return the count
	 */
	public long scriptCalls() {
		return scriptCalls(template()
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats")));
	}

	/**
	 * Returns how many scripts a server has run, from its {@code INFO commandstats}: {@code EVALSHA}
	 * calls, and {@code EVAL} calls where it did not know the script yet.
	 * @param stats the server's {@code INFO commandstats}, one property per command
	 * @return the count
	 */
	public static long scriptCalls(@Nullable Properties stats) {
		long calls = 0;
		for (String command : List.of("cmdstat_evalsha", "cmdstat_eval")) {
			String line = (stats != null) ? stats.getProperty(command) : null;
			if (line != null) {
				calls += Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
			}
		}
		return calls;
	}

	private synchronized void closeConnections() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
	}

	@Override
	public String toString() {
		return url() + " (" + this.source + ")";
	}

	/**
	 * A pause of the server's scripts and writes ({@link #pauseWrites(Duration)}), ended by {@link #close()}.
	 */
	@FunctionalInterface
	public interface Pause extends AutoCloseable {

		/**
		 * Lets the server run what it held, in the order it came.
		 */
		@Override
		void close();

	}

	/** Keeps Testcontainers classes from loading unless Testcontainers is on the class path. */
	private static final class DockerRedis {

		static Optional<RedisTestServer> startIfDockerAnswers() {
			if (!isPresent("org.testcontainers.DockerClientFactory")) {
				return Optional.empty();
			}
			return Containers.start();
		}

		private static boolean isPresent(String className) {
			try {
				Class.forName(className, false, RedisTestServer.class.getClassLoader());
				return true;
			}
			catch (ClassNotFoundException | LinkageError ex) {
				return false;
			}
		}

	}

	private static final class Containers {

		@SuppressWarnings("resource")
		static Optional<RedisTestServer> start() {
			if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
				return Optional.empty();
			}
			org.testcontainers.containers.GenericContainer<?> container = new org.testcontainers.containers.GenericContainer<>(
					"redis:7-alpine")
				.withExposedPorts(6379);
			container.start();
			Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "ratelimit-redis-container-stop"));
			String url = "redis://" + container.getHost() + ":" + container.getMappedPort(6379);
			return Optional.of(new RedisTestServer(RedisURI.create(url), "Testcontainers redis:7-alpine"));
		}

	}

}

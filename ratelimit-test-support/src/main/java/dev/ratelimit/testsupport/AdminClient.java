package dev.ratelimit.testsupport;

import java.time.Duration;
import java.util.function.Function;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

/**
 * Sends administrative commands to servers started here, each over a connection of its own. A stopped server refuses
 * the connection at once; a live one is given as long as a loaded machine may need (a short timeout here once failed a
 * cluster's formation on a busy machine, while nothing was wrong with the cluster).
 */
final class AdminClient implements AutoCloseable {

	/** How long a connection and a command may take: far more than any does, so that only a dead server fails. */
	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final RedisClient client = RedisClient.create();

	/**
	 * Runs commands on the server at {@code port}; cluster redirections are not followed.
	 * @param <T> the result type
	 * @param port the server's port on 127.0.0.1
	 * @param commands what to run
	 * @return what {@code commands} returned
	 */
	<T> T execute(int port, Function<RedisCommands<String, String>, T> commands) {
		try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(port))) {
			return commands.apply(connection.sync());
		}
	}

	/**
	 * Runs commands on the Sentinel at {@code port}.
	 * @param <T> the result type
	 * @param port the Sentinel's port on 127.0.0.1
	 * @param commands what to run
	 * @return what {@code commands} returned
	 */
	<T> T sentinel(int port, Function<RedisSentinelCommands<String, String>, T> commands) {
		try (StatefulRedisSentinelConnection<String, String> connection = this.client.connectSentinel(uri(port))) {
			return commands.apply(connection.sync());
		}
	}

	/**
	 * Returns whether the server at {@code port} reports itself as a master.
	 * @param port the server's port on 127.0.0.1
	 * @return {@code true} when its {@code INFO replication} says {@code role:master}
	 */
	boolean isMaster(int port) {
		return execute(port, (redis) -> redis.info("replication")).contains("role:master");
	}

	/**
	 * Returns whether the server at {@code port} is a replica in sync with its master.
	 * @param port the server's port on 127.0.0.1
	 * @return {@code true} when its {@code INFO replication} says {@code master_link_status:up}
	 */
	boolean isInSync(int port) {
		return execute(port, (redis) -> redis.info("replication")).contains("master_link_status:up");
	}

	private static RedisURI uri(int port) {
		return RedisURI.builder()
			.withHost(RedisServerProcess.HOST)
			.withPort(port)
			.withTimeout(TIMEOUT)
			.build();
	}

	/**
	 * Releases the client's threads.
	 */
	@Override
	public void close() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

}

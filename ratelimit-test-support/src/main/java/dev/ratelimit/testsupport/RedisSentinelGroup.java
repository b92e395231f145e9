package dev.ratelimit.testsupport;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * A master, its replica and a Sentinel that watches them, all local {@code redis-server} processes on
 * 127.0.0.1 stopped through their own handles. The Sentinel declares the master down after a second
 * and promotes the replica.
 */
public final class RedisSentinelGroup implements AutoCloseable {

	/** The name the Sentinel monitors the master under, for {@code spring.data.redis.sentinel.master}. */
	public static final String MASTER_NAME = "mymaster";

	/** How long the master may go unanswered before the Sentinel considers it down. */
	public static final Duration DOWN_AFTER = Duration.ofMillis(1000);

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(30);

	private final RedisServerProcess master;

	private final RedisServerProcess replica;

	private final RedisServerProcess sentinel;

	private final AdminClient admin = new AdminClient();

	private RedisSentinelGroup(RedisServerProcess master, RedisServerProcess replica, RedisServerProcess sentinel) {
		this.master = master;
		this.replica = replica;
		this.sentinel = sentinel;
	}

	/**
	 * Starts a master, a replica of it and a Sentinel, and waits until the replica is in sync and the
	 * Sentinel knows it, so that the Sentinel could fail over at once.
	 * @param binary the {@code redis-server} executable
	 * @return the running group
	 */
	public static RedisSentinelGroup start(Path binary) {
		// a master sends a replica its first copy at once: Redis 7 waits 5 s by default (repl-diskless-sync-delay)
		// for more replicas to share it; the replica may become the master
		RedisServerProcess master = RedisServerProcess.start(binary, "--repl-diskless-sync-delay", "0");
		RedisServerProcess replica = null;
		RedisServerProcess sentinel = null;
		try {
			replica = RedisServerProcess.start(binary, "--repl-diskless-sync-delay", "0", "--replicaof",
					RedisServerProcess.HOST, Integer.toString(master.port()));
			sentinel = startSentinel(binary, master.port());
			RedisSentinelGroup group = new RedisSentinelGroup(master, replica, sentinel);
			try {
				Polling.until("the replica to be in sync and known to the Sentinel", FORMATION_TIMEOUT,
						() -> group.isInSync() && group.sentinelKnowsReplica());
			}
			catch (RuntimeException ex) {
				group.close();
				throw ex;
			}
			return group;
		}
		catch (RuntimeException ex) {
			for (RedisServerProcess process : new RedisServerProcess[] { sentinel, replica, master }) {
				if (process != null) {
					process.stop();
				}
			}
			throw ex;
		}
	}

	private static RedisServerProcess startSentinel(Path binary, int masterPort) {
		// a Sentinel rewrites its configuration file, so it must have one; port, bind and dir come as arguments
		String config = String.join("\n", "sentinel monitor " + MASTER_NAME + " " + RedisServerProcess.HOST + " "
				+ masterPort + " 1", "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER.toMillis(),
				"sentinel failover-timeout " + MASTER_NAME + " 3000", "");
		return RedisServerProcess.startWithConfigFile(binary, config, "--sentinel");
	}

	private boolean isInSync() {
		return this.admin.isInSync(this.replica.port());
	}

	private boolean sentinelKnowsReplica() {
		List<Map<String, String>> replicas = this.admin.sentinel(this.sentinel.port(),
				(sentinel) -> sentinel.replicas(MASTER_NAME));
		return replicas.stream()
			.anyMatch((known) -> Integer.toString(this.replica.port()).equals(known.get("port"))
					&& "slave".equals(known.get("flags")));
	}

	/**
	 * Returns the master the group was started with.
	 * @return the master
	 */
	public RedisServerProcess master() {
		return this.master;
	}

	/**
	 * Returns the replica the group was started with.
	 * @return the replica
	 */
	public RedisServerProcess replica() {
		return this.replica;
	}

	/**
	 * Returns the Sentinel.
	 * @return the Sentinel
	 */
	public RedisServerProcess sentinel() {
		return this.sentinel;
	}

	/**
	 * Returns the Sentinel as {@code spring.data.redis.sentinel.nodes} takes it.
	 * @return {@code 127.0.0.1:port}
	 */
	public String sentinelNodesProperty() {
		return RedisServerProcess.HOST + ":" + this.sentinel.port();
	}

	/**
	 * Returns the port of the master as the Sentinel currently names it.
	 * @return the port
	 */
	public int currentMasterPort() {
		SocketAddress address = this.admin.sentinel(this.sentinel.port(),
				(sentinel) -> sentinel.getMasterAddrByName(MASTER_NAME));
		return ((InetSocketAddress) address).getPort();
	}

	/**
	 * Returns whether a server reports itself as a master.
	 * @param server the master or the replica
	 * @return {@code true} when its {@code INFO replication} says {@code role:master}
	 */
	public boolean isMaster(RedisServerProcess server) {
		return this.admin.isMaster(server.port());
	}

	/**
	 * Runs commands on the master or the replica over a connection of its own, closed afterwards.
	 * @param <T> the result type
	 * @param server the server
	 * @param commands what to run
	 * @return what {@code commands} returned
	 */
	public <T> T execute(RedisServerProcess server, Function<RedisCommands<String, String>, T> commands) {
		return this.admin.execute(server.port(), commands);
	}

	/**
	 * Stops the Sentinel, the replica and the master through their process handles, closes the admin
	 * client and deletes their working directories.
	 */
	@Override
	public void close() {
		try {
			this.admin.close();
		}
		finally {
			this.sentinel.stop();
			this.replica.stop();
			this.master.stop();
		}
	}

}

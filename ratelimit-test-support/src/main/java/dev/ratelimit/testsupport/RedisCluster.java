package dev.ratelimit.testsupport;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;

/**
 * A real Redis Cluster of local {@code redis-server} processes on 127.0.0.1, formed by this class with
 * {@code CLUSTER MEET}, {@code CLUSTER ADDSLOTS} and {@code CLUSTER REPLICATE}, as {@code redis-cli
 * --cluster create} would; stopped through the processes' own handles.
 */
public final class RedisCluster implements AutoCloseable {

	/** How long a node may go unanswered before the others consider it failing. */
	public static final Duration NODE_TIMEOUT = Duration.ofMillis(2000);

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(30);

	private final List<RedisServerProcess> masters;

	private final List<RedisServerProcess> replicas;

	private final AdminClient admin = new AdminClient();

	private RedisCluster(List<RedisServerProcess> masters, List<RedisServerProcess> replicas) {
		this.masters = masters;
		this.replicas = replicas;
	}

	/**
	 * Starts {@code masters} nodes that share the 16384 slots in equal ranges, each with
	 * {@code replicasPerMaster} replicas, and waits until every node reports {@code cluster_state:ok}
	 * and every replica is in sync with its master.
	 * @param binary the {@code redis-server} executable
	 * @param masters how many masters, at least 3
	 * @param replicasPerMaster how many replicas each master has, 0 or more
	 * @return the running cluster
	 */
	public static RedisCluster start(Path binary, int masters, int replicasPerMaster) {
		if (masters < 3) {
			throw new IllegalArgumentException("A Redis Cluster needs at least 3 masters, but " + masters + " were asked");
		}
		List<RedisServerProcess> started = new ArrayList<>();
		try {
			for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
				started.add(startNode(binary));
			}
			RedisCluster cluster = new RedisCluster(List.copyOf(started.subList(0, masters)),
					List.copyOf(started.subList(masters, started.size())));
			try {
				cluster.form(replicasPerMaster);
			}
			catch (RuntimeException ex) {
				cluster.close();
				throw ex;
			}
			return cluster;
		}
		catch (RuntimeException ex) {
			started.forEach(RedisServerProcess::stop);
			throw ex;
		}
	}

	private static RedisServerProcess startNode(Path binary) {
		// the cluster bus listens on the port + 10000, which must be free too; a master sends a replica its first
		// copy at once (Redis 7 waits 5 s by default, repl-diskless-sync-delay, for more replicas to share it)
		return RedisServerProcess.retried(() -> RedisServerProcess.start(binary, freePortWithFreeBusPort(),
				"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout",
				Long.toString(NODE_TIMEOUT.toMillis()), "--repl-diskless-sync-delay", "0"));
	}

	private static int freePortWithFreeBusPort() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = RedisServerProcess.freePort();
			if (port + 10000 <= 65535 && isFree(port + 10000)) {
				return port;
			}
		}
		throw new IllegalStateException("Found no free port whose cluster bus port (+10000) is free too");
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(RedisServerProcess.HOST))) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private void form(int replicasPerMaster) {
		List<RedisServerProcess> all = nodes();
		for (int i = 0; i < this.masters.size(); i++) {
			// distinct epochs, as redis-cli gives them, so that no collision must be resolved first
			long epoch = i + 1;
			execute(this.masters.get(i), (redis) -> redis.clusterSetConfigEpoch(epoch));
		}
		RedisServerProcess first = all.get(0);
		for (RedisServerProcess node : all.subList(1, all.size())) {
			execute(first, (redis) -> redis.clusterMeet(RedisServerProcess.HOST, node.port()));
		}
		for (int i = 0; i < this.masters.size(); i++) {
			int[] slots = IntStream.range(firstSlot(i), firstSlot(i + 1)).toArray();
			execute(this.masters.get(i), (redis) -> redis.clusterAddSlots(slots));
		}
		waitUntil("every node knows all " + all.size() + " nodes",
				() -> all.stream().allMatch((node) -> knownNodes(node) == all.size()));
		for (int i = 0; i < this.replicas.size(); i++) {
			String masterId = nodeId(this.masters.get(i / replicasPerMaster));
			execute(this.replicas.get(i), (redis) -> redis.clusterReplicate(masterId));
		}
		waitUntil("cluster_state:ok on every node, every replica in sync and known as such by every node",
				() -> all.stream().allMatch(this::isOk) && this.replicas.stream().allMatch(this::isInSync)
						&& all.stream().allMatch((node) -> countReplicas(node) == this.replicas.size()));
	}

	private int firstSlot(int master) {
		return master * SlotHash.SLOT_COUNT / this.masters.size();
	}

	private int knownNodes(RedisServerProcess node) {
		return execute(node, (redis) -> redis.clusterNodes()).strip().split("\n").length;
	}

	private long countReplicas(RedisServerProcess node) {
		String nodes = execute(node, (redis) -> redis.clusterNodes());
		return nodes.lines().filter((line) -> line.split(" ")[2].contains("slave")).count();
	}

	private boolean isOk(RedisServerProcess node) {
		return execute(node, (redis) -> redis.clusterInfo()).contains("cluster_state:ok");
	}

	private boolean isInSync(RedisServerProcess replica) {
		return this.admin.isInSync(replica.port());
	}

	/**
	 * Returns the seed list for {@code spring.data.redis.cluster.nodes}: every node as
	 * {@code 127.0.0.1:port}, masters first.
	 * @return the comma-separated nodes
	 */
	public String nodesProperty() {
		return nodes().stream()
			.map((node) -> RedisServerProcess.HOST + ":" + node.port())
			.collect(Collectors.joining(","));
	}

	/**
	 * Returns every node, masters first, in the roles the cluster was formed with.
	 * @return the nodes
	 */
	public List<RedisServerProcess> nodes() {
		List<RedisServerProcess> all = new ArrayList<>(this.masters);
		all.addAll(this.replicas);
		return Collections.unmodifiableList(all);
	}

	/**
	 * Returns the masters the cluster was formed with, in slot order.
	 * @return the masters
	 */
	public List<RedisServerProcess> masters() {
		return this.masters;
	}

	/**
	 * Returns the replicas the cluster was formed with, grouped by master in slot order.
	 * @return the replicas
	 */
	public List<RedisServerProcess> replicas() {
		return this.replicas;
	}

	/**
	 * Returns the master a slot was given to when the cluster was formed.
	 * @param slot the slot, from 0 to 16383
	 * @return the master
	 */
	public RedisServerProcess formedMasterOf(int slot) {
		for (int i = this.masters.size() - 1; i >= 0; i--) {
			if (slot >= firstSlot(i)) {
				return this.masters.get(i);
			}
		}
		throw new IllegalArgumentException("No slot " + slot);
	}

	/**
	 * Returns the master a key was given to when the cluster was formed.
	 * @param key the key
	 * @return the master
	 */
	public RedisServerProcess formedMasterOfKey(String key) {
		return formedMasterOf(SlotHash.getSlot(key));
	}

	/**
	 * Returns the node id of a node.
	 * @param node the node
	 * @return its 40-character id
	 */
	public String nodeId(RedisServerProcess node) {
		return execute(node, (redis) -> redis.clusterMyId());
	}

	/**
	 * Returns whether a node reports itself as a master.
	 * @param node the node
	 * @return {@code true} when its {@code INFO replication} says {@code role:master}
	 */
	public boolean isMaster(RedisServerProcess node) {
		return this.admin.isMaster(node.port());
	}

	/**
	 * Counts the keys matching a {@code SCAN} pattern on each of the given nodes.
	 * @param nodes the nodes
	 * @param pattern the pattern, for example {@code rate:fixed:*}
	 * @return the count per node's port, in the order given
	 */
	public Map<Integer, Long> countKeys(List<RedisServerProcess> nodes, String pattern) {
		Map<Integer, Long> counts = new LinkedHashMap<>();
		for (RedisServerProcess node : nodes) {
			counts.put(node.port(), execute(node, (redis) -> {
				ScanArgs matching = ScanArgs.Builder.matches(pattern).limit(1000);
				KeyScanCursor<String> cursor = redis.scan(matching);
				long count = cursor.getKeys().size();
				while (!cursor.isFinished()) {
					cursor = redis.scan(cursor, matching);
					count += cursor.getKeys().size();
				}
				return count;
			}));
		}
		return counts;
	}

	/**
	 * Runs commands on one node over a connection of its own, closed afterwards; cluster redirections
	 * are not followed, and a stopped node fails them at once (its connection is refused).
	 * @param <T> the result type
	 * @param node the node
	 * @param commands what to run
	 * @return what {@code commands} returned
	 */
	public <T> T execute(RedisServerProcess node, Function<RedisCommands<String, String>, T> commands) {
		return this.admin.execute(node.port(), commands);
	}

	/**
	 * Returns how many scripts a node has run so far ({@link RedisTestServer#scriptCalls(Properties)}).
	 * @param node the node
	 * @return the count
	 */
	public long scriptCalls(RedisServerProcess node) {
		Properties stats = new Properties();
		try {
			// "cmdstat_evalsha:calls=3,usec=..." lines: a property per command
			stats.load(new StringReader(execute(node, (commands) -> commands.info("commandstats"))));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return RedisTestServer.scriptCalls(stats);
	}

	private static void waitUntil(String condition, BooleanSupplier check) {
		Polling.until("the cluster to reach " + condition, FORMATION_TIMEOUT, check);
	}

	/**
	 * Stops every node through its process handle, closes the admin client and deletes the nodes'
	 * working directories.
	 */
	@Override
	public void close() {
		try {
			this.admin.close();
		}
		finally {
			nodes().forEach(RedisServerProcess::stop);
		}
	}

}

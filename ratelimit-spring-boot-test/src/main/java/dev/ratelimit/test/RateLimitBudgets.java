package dev.ratelimit.test;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.redis.LocalDenialCache;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Every budget of the application, reset at once: the bean {@link AutoConfigureRateLimit} registers and resets
 * before each test method. A test may reset again in the middle ({@link #resetAll()}).
 * <p>
 * A reset deletes every key under the application's {@code ratelimit.key-prefix} ({@code <prefix>:*}: every
 * limiter's state, blocks and slots of work in flight), found with {@code SCAN} (on each master of a Redis
 * Cluster), and forgets the refusals the local denial cache remembers. What an instance holds in its own memory
 * besides is not reset: permits a {@code prefetch} rule took in advance, and the in-memory budgets of the
 * {@code local} failure mode, which only decide while Redis cannot.
 *
 * @since 0.1.0
 */
public final class RateLimitBudgets {

	/** How many keys one {@code SCAN} step asks for, and one {@code DEL} deletes at most. */
	private static final int BATCH = 500;

	private final RedisConnectionFactory connectionFactory;

	private final String keyPrefix;

	private final @Nullable LocalDenialCache denialCache;

	RateLimitBudgets(RedisConnectionFactory connectionFactory, String keyPrefix, @Nullable LocalDenialCache denialCache) {
		this.connectionFactory = connectionFactory;
		this.keyPrefix = keyPrefix;
		this.denialCache = denialCache;
	}

	/**
	 * Resets every budget of the application: deletes every key under its prefix and forgets the refusals the
	 * local denial cache remembers.
	 * @return how many Redis keys were deleted
	 */
	public long resetAll() {
		long deleted;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			deleted = (connection instanceof RedisClusterConnection cluster) ? resetCluster(cluster)
					: delete(connection, connection.keyCommands().scan(scanOptions()));
		}
		if (this.denialCache != null) {
			this.denialCache.clear();
		}
		return deleted;
	}

	private long resetCluster(RedisClusterConnection cluster) {
		long deleted = 0;
		// SCAN sees one node's keys: every master is asked in turn
		for (RedisClusterNode node : cluster.clusterGetNodes()) {
			if (node.isMaster()) {
				deleted += delete(cluster, cluster.scan(node, scanOptions()));
			}
		}
		return deleted;
	}

	private ScanOptions scanOptions() {
		// a prefix holds no glob character (ratelimit.key-prefix is checked at startup), so it matches itself
		return ScanOptions.scanOptions().match(this.keyPrefix + ":*").count(BATCH).build();
	}

	private static long delete(RedisConnection connection, Cursor<byte[]> keys) {
		long deleted = 0;
		try (keys) {
			List<byte[]> batch = new ArrayList<>(BATCH);
			while (keys.hasNext()) {
				batch.add(keys.next());
				if (batch.size() == BATCH) {
					deleted += deleteBatch(connection, batch);
				}
			}
			deleted += deleteBatch(connection, batch);
		}
		return deleted;
	}

	private static long deleteBatch(RedisConnection connection, List<byte[]> batch) {
		if (batch.isEmpty()) {
			return 0;
		}
		Long deleted = connection.keyCommands().del(batch.toArray(new byte[0][]));
		batch.clear();
		return (deleted != null) ? deleted : 0;
	}

	@Override
	public String toString() {
		return "RateLimitBudgets[" + this.keyPrefix + ":*]";
	}

}

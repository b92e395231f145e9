package dev.ratelimit.testsupport;

import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedisClusterTests {

	@Test
	void formsAClusterWhoseMastersShareEverySlotAndWhoseReplicasFollowThem() {
		RedisServerProcess stopped;
		try (RedisCluster cluster = RedisCluster.start(RedisBinary.find(), 3, 1)) {
			assertThat(cluster.nodes()).hasSize(6).allMatch(RedisServerProcess::isAlive);
			assertThat(cluster.nodesProperty().split(",")).hasSize(6).allMatch((node) -> node.startsWith("127.0.0.1:"));
			for (RedisServerProcess node : cluster.nodes()) {
				String info = cluster.execute(node, (redis) -> redis.clusterInfo());
				assertThat(info).contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:6",
						"cluster_size:3");
			}
			assertThat(cluster.masters()).allMatch(cluster::isMaster);
			assertThat(cluster.replicas()).noneMatch(cluster::isMaster);
			for (int i = 0; i < 3; i++) {
				String masterId = cluster.nodeId(cluster.masters().get(i));
				List<String> replicas = cluster.execute(cluster.masters().get(i), (redis) -> redis.clusterReplicas(masterId));
				assertThat(replicas).singleElement().asString().contains(":" + cluster.replicas().get(i).port() + "@");
			}
			assertThat(cluster.formedMasterOf(0)).isSameAs(cluster.masters().get(0));
			assertThat(cluster.formedMasterOf(SlotHash.SLOT_COUNT - 1)).isSameAs(cluster.masters().get(2));
			// the node a key was given to stores it; another answers with a redirection
			String key = "a-key";
			RedisServerProcess owner = cluster.formedMasterOfKey(key);
			String reply = cluster.execute(owner, (redis) -> redis.set(key, "1"));
			assertThat(reply).isEqualTo("OK");
			assertThat(cluster.countKeys(cluster.masters(), "a-*").values()).containsExactlyInAnyOrder(1L, 0L, 0L);
			stopped = cluster.masters().get(0);
		}
		assertThat(stopped.isAlive()).isFalse();
	}

}

package dev.ratelimit.testsupport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedisSentinelGroupTests {

	@Test
	void startsAMasterItsReplicaAndASentinelThatNamesTheMaster() {
		RedisServerProcess sentinel;
		try (RedisSentinelGroup group = RedisSentinelGroup.start(RedisBinary.find())) {
			sentinel = group.sentinel();
			assertThat(group.currentMasterPort()).isEqualTo(group.master().port());
			assertThat(group.sentinelNodesProperty()).isEqualTo("127.0.0.1:" + group.sentinel().port());
			assertThat(group.isMaster(group.master())).isTrue();
			assertThat(group.isMaster(group.replica())).isFalse();
			group.execute(group.master(), (redis) -> redis.set("replicated", "yes"));
			long acknowledged = group.execute(group.master(), (redis) -> redis.waitForReplication(1, 2000));
			String replicated = group.execute(group.replica(), (redis) -> redis.get("replicated"));
			assertThat(acknowledged).isEqualTo(1);
			assertThat(replicated).isEqualTo("yes");
		}
		assertThat(sentinel.isAlive()).isFalse();
	}

}

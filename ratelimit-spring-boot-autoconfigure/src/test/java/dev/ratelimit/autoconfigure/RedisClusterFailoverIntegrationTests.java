package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.redis.AlgorithmRateLimiter;
import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisCluster;
import dev.ratelimit.testsupport.RedisServerProcess;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master of a real Redis Cluster of three masters and three replicas is stopped while several threads
 * call the auto-configured limiters, with the default fail-open mode and circuit breaker and Lettuce's
 * periodic topology refresh (adaptive refresh is Boot 4.1's default, Boot 4.0's not): every call is decided or fails with
 * {@link RateLimiterUnavailableException}, and decisions on the stopped master's slots come back on
 * their own once its replica is promoted. Prints the timeline.
 */
class RedisClusterFailoverIntegrationTests {

	private static RedisCluster cluster;

	// without a periodic refresh, Lettuce kept sending the stopped master's slots to it (not back in 30 s)
	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
				"spring.data.redis.lettuce.cluster.refresh.period=1s", "ratelimit.key-prefix=failover");

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(RedisBinary.find(), 3, 1);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@Test
	void decidesOrAppliesTheFailureModeWhileAMasterFailsOverAndRecoversOnItsOwn() {
		RedisServerProcess failing = cluster.masters().get(0);
		RedisServerProcess replica = cluster.replicas().get(0);
		this.runner.run((context) -> {
			Collection<RateLimiter> limiters = context.getBeansOfType(RateLimiter.class).values();
			List<DecisionLoad.Call> calls = new ArrayList<>();
			for (int i = 0; i < 60; i++) {
				for (RateLimiter limiter : limiters) {
					calls.add(new DecisionLoad.Call(limiter, "client-" + i, masterOf(limiter, "client-" + i) == failing));
				}
			}
			DecisionLoad load = DecisionLoad.throughOutage(calls, 4, failing::stop, () -> cluster.isMaster(replica));
			load.printTimeline("cluster failover", "master " + failing.port() + " of 3 stopped",
					"replica seen as master");

			assertThat(load.samples()).as("calls neither decided nor unavailable")
				.allMatch(DecisionLoad.Sample::decidedOrUnavailable);
			assertThat(load.samples()).as("failed calls on the stopped master's slots")
				.anyMatch((sample) -> sample.call().watched() && sample.failure() != null);
			// the promoted replica decides exactly, for every algorithm
			for (RateLimiter limiter : limiters) {
				String fresh = IntStream.range(0, 1000)
					.mapToObj((i) -> "after-" + i)
					.filter((id) -> masterOf(limiter, id) == failing)
					.findFirst()
					.orElseThrow();
				assertThat(IntStream.range(0, 4)
					.mapToObj((i) -> limiter.tryAcquire(fresh, RateLimit.of(3, Duration.ofMinutes(1))).allowed()))
					.as("%s on the promoted replica", limiter.algorithm())
					.containsExactly(true, true, true, false);
			}
		});
	}

	private static RedisServerProcess masterOf(RateLimiter limiter, String id) {
		return cluster.formedMasterOfKey(((AlgorithmRateLimiter) limiter).redisKey(id));
	}

}

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
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.redis.AlgorithmRateLimiter;
import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisSentinelGroup;
import dev.ratelimit.testsupport.RedisServerProcess;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured limiters on a real master, replica and Sentinel, reached through
 * {@code spring.data.redis.sentinel.*}: they limit on the master the Sentinel names, and after the
 * master is stopped and the Sentinel promotes the replica, limiting resumes in the same application
 * context, every call meanwhile decided or failing with {@link RateLimiterUnavailableException}.
 * Prints the timeline.
 */
class RedisSentinelIntegrationTests {

	private static RedisSentinelGroup group;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.sentinel.master=" + RedisSentinelGroup.MASTER_NAME,
				"spring.data.redis.sentinel.nodes=" + group.sentinelNodesProperty(), "ratelimit.key-prefix=sentinel");

	@BeforeAll
	static void startServers() {
		group = RedisSentinelGroup.start(RedisBinary.find());
	}

	@AfterAll
	static void stopServers() {
		group.close();
	}

	@Test
	void limitsOnTheMasterTheSentinelNames() {
		// functional: on a loaded machine the first connection to the master can take longer than the 200ms default
		this.runner.withPropertyValues("ratelimit.timeout=5s").run((context) -> {
			RedisServerProcess master = (group.currentMasterPort() == group.master().port()) ? group.master()
					: group.replica();
			for (RateLimiter limiter : context.getBeansOfType(RateLimiter.class).values()) {
				String id = "named-" + limiter.algorithm();
				assertThat(IntStream.range(0, 4)
					.mapToObj((i) -> limiter.tryAcquire(id, RateLimit.of(3, Duration.ofMinutes(1))))
					.map(RateLimitDecision::allowed))
					.as("%s", limiter.algorithm())
					.containsExactly(true, true, true, false);
				String key = ((AlgorithmRateLimiter) limiter).redisKey(id);
				long stored = group.execute(master, (redis) -> redis.exists(key));
				assertThat(stored).as("%s on the master", key).isEqualTo(1);
			}
		});
	}

	@Test
	void aFreshInstanceStartedWhileOtherProcessesKeepTheCpusBusyHoldsItsLimitsFromTheFirstRequest() {
		RedisServerProcess master = (group.currentMasterPort() == group.master().port()) ? group.master()
				: group.replica();
		group.execute(master, (redis) -> redis.scriptFlush());
		try (BusyCpus busy = BusyCpus.start()) {
			// the default ratelimit.timeout (200ms): the Sentinel's discovery of the master, the connection and the
			// scripts' loading happen while the application starts, not in its first decisions
			this.runner.withPropertyValues("ratelimit.key-prefix=fresh-sentinel").run((context) -> {
				assertThat(cachedScripts(master)).as("scripts the master holds before the first decision").isPositive();
				for (RateLimiter limiter : context.getBeansOfType(RateLimiter.class).values()) {
					String id = "fresh-" + limiter.algorithm();
					assertThat(IntStream.range(0, 4)
						.mapToObj((i) -> limiter.tryAcquire(id, RateLimit.of(3, Duration.ofMinutes(1))))
						.map(RateLimitDecision::allowed))
						.as("%s", limiter.algorithm())
						.containsExactly(true, true, true, false);
				}
			});
		}
	}

	private static long cachedScripts(RedisServerProcess server) {
		String memory = group.execute(server, (redis) -> redis.info("memory"));
		return memory.lines()
			.filter((line) -> line.startsWith("number_of_cached_scripts:"))
			.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
			.findFirst()
			.orElseThrow();
	}

	@Test
	void resumesLimitingAfterTheSentinelPromotesTheReplica() {
		RedisServerProcess master = group.master();
		RedisServerProcess replica = group.replica();
		this.runner.run((context) -> {
			Collection<RateLimiter> limiters = context.getBeansOfType(RateLimiter.class).values();
			List<DecisionLoad.Call> calls = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				for (RateLimiter limiter : limiters) {
					calls.add(new DecisionLoad.Call(limiter, "client-" + i, true));
				}
			}
			DecisionLoad load = DecisionLoad.throughOutage(calls, 2, master::stop,
					() -> group.currentMasterPort() == replica.port());
			load.printTimeline("sentinel failover", "master stopped", "Sentinel names the replica as master");

			assertThat(load.samples()).as("calls neither decided nor unavailable")
				.allMatch(DecisionLoad.Sample::decidedOrUnavailable);
			assertThat(load.samples()).as("failed calls while no master was known")
				.anyMatch((sample) -> sample.failure() != null);
			assertThat(group.isMaster(replica)).isTrue();
			for (RateLimiter limiter : limiters) {
				String id = "after-" + limiter.algorithm();
				assertThat(IntStream.range(0, 4)
					.mapToObj((i) -> limiter.tryAcquire(id, RateLimit.of(3, Duration.ofMinutes(1))).allowed()))
					.as("%s on the promoted replica", limiter.algorithm())
					.containsExactly(true, true, true, false);
				String key = ((AlgorithmRateLimiter) limiter).redisKey(id);
				long stored = group.execute(replica, (redis) -> redis.exists(key));
				assertThat(stored).as("%s on the promoted replica", key).isEqualTo(1);
			}
		});
	}

}

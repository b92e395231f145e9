package dev.ratelimit.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.redis.AlgorithmRateLimiter;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.SlidingWindowCounterRateLimiter;
import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisCluster;
import dev.ratelimit.testsupport.RedisServerProcess;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The auto-configured limiters on a real Redis Cluster of three masters, reached through
 * {@code spring.data.redis.cluster.nodes}: every algorithm, multi-limit rules on one slot, exactness
 * under concurrency, and the keys of many clients spread over every master.
 */
class RedisClusterIntegrationTests {

	private static final int THREADS = 50;

	private static final int CLIENTS = 3000;

	private static RedisCluster cluster;

	private static ExecutorService pool;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		// a cold JVM opens a connection to each master and loads each script on first use, which can take
		// longer than the default timeout under a burst; these tests are about decisions, not latency
		.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "ratelimit.timeout=5s",
				"ratelimit.key-prefix=cluster-" + UUID.randomUUID().toString().substring(0, 8));

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(RedisBinary.find(), 3, 0);
		pool = Executors.newFixedThreadPool(THREADS);
	}

	@AfterAll
	static void stopCluster() {
		pool.shutdownNow();
		cluster.close();
	}

	@Test
	void everyAlgorithmLimitsKeysOnEveryMaster() {
		List<String> keys = IntStream.range(0, 12).mapToObj((i) -> "client-" + i).toList();
		// the keys of the single-limit form, <prefix>:<kind>:<id>, must cover all three masters
		this.runner.run((context) -> {
			for (RateLimiter limiter : limiters(context)) {
				assertThat(keys.stream()
					.map((key) -> cluster.formedMasterOfKey(redisKey(limiter, key)))
					.distinct()).as("masters holding the keys of %s", limiter.algorithm()).hasSize(3);
				for (String key : keys) {
					List<RateLimitDecision> decisions = IntStream.range(0, 4)
						.mapToObj((i) -> limiter.tryAcquire(key, RateLimit.of(3, Duration.ofMinutes(1))))
						.toList();
					assertThat(decisions).as("%s on %s", limiter.algorithm(), key)
						.extracting(RateLimitDecision::allowed)
						.containsExactly(true, true, true, false);
					assertThat(decisions).as("%s on %s", limiter.algorithm(), key)
						.extracting(RateLimitDecision::remaining)
						.containsExactly(2L, 1L, 0L, 0L);
				}
			}
		});
	}

	@Test
	void chargesReadsAndResetsMultiLimitRulesWithTheirKeysOnOneSlot() {
		this.runner.run((context) -> {
			String prefix = context.getBean(RateLimitProperties.class).getKeyPrefix();
			List<RateLimit> limits = List.of(RateLimit.of(2, Duration.ofMinutes(1)), RateLimit.of(5, Duration.ofHours(1)));
			for (RateLimiter limiter : limiters(context)) {
				String id = "multi-" + limiter.algorithm();
				List<List<RateLimitDecision>> calls = IntStream.range(0, 3)
					.mapToObj((i) -> limiter.tryAcquire(id, limits, 1))
					.toList();
				// the third call is refused by the minute and charges the hour nothing
				assertThat(calls).as("%s", limiter.algorithm())
					.extracting((decisions) -> decisions.get(0).allowed() + "/" + decisions.get(1).allowed() + " "
							+ decisions.get(0).remaining() + "/" + decisions.get(1).remaining())
					.containsExactly("true/true 1/4", "true/true 0/3", "false/true 0/3");
				// both keys share the hash tag {id}: they live on the master of that tag's slot only
				RedisServerProcess owner = cluster.formedMasterOfKey("{" + id + "}");
				Map<Integer, Long> counts = cluster.countKeys(cluster.masters(), prefix + ":*:{" + id + "}:*");
				assertThat(counts).as("%s", limiter.algorithm()).containsEntry(owner.port(), 2L);
				assertThat(counts.values()).as("%s", limiter.algorithm()).containsExactlyInAnyOrder(2L, 0L, 0L);
				// reading and resetting the state touch both keys in one script too
				assertThat(limiter.inspect(id, limits)).extracting(RateLimitDecision::remaining).containsExactly(0L, 3L);
				assertThat(limiter.reset(id, limits)).as("%s", limiter.algorithm()).isEqualTo(2);
				assertThat(limiter.inspect(id, limits)).extracting(RateLimitDecision::remaining).containsExactly(2L, 5L);
			}
		});
	}

	@Test
	void refusesScriptsWhoseKeysAreOnDifferentSlots() {
		// what a limiter without hash tags would meet; ours never do, as the test above shows
		String first = "cross-a";
		String second = "cross-b";
		assertThat(SlotHash.getSlot(first)).isNotEqualTo(SlotHash.getSlot(second));
		this.runner.run((context) -> {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			try (RedisConnection connection = factory.getConnection()) {
				assertThatException()
					.isThrownBy(() -> connection.scriptingCommands()
						.eval("return 1".getBytes(StandardCharsets.UTF_8), ReturnType.INTEGER, 2,
								first.getBytes(StandardCharsets.UTF_8), second.getBytes(StandardCharsets.UTF_8)))
					.withStackTraceContaining("CROSSSLOT");
			}
		});
	}

	@Test
	void allowsExactlyTheLimitToFiftyThreadsReleasedTogether() {
		RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1));
		this.runner.run((context) -> {
			for (RateLimiter limiter : limiters(context)) {
				for (int round = 0; round < 10; round++) {
					String key = "burst-" + round + "-" + UUID.randomUUID();
					assertThat(allowedCount(limiter, key, limit)).as("%s, round %d", limiter.algorithm(), round)
						.isEqualTo(10);
				}
			}
		});
	}

	@Test
	void batchesTheCallsOfEachSlotApartAndDecidesEachExactly() {
		// two hash tags on two masters: a batch carries calls of one slot only, else Redis refuses it (CROSSSLOT)
		List<String> tags = List.of("a", "b");
		assertThat(tags.stream().map((tag) -> cluster.formedMasterOfKey("{" + tag + "}")).distinct()).hasSize(2);
		RateLimit limit = RateLimit.of(100, Duration.ofMinutes(10));
		this.runner.withPropertyValues("ratelimit.key-prefix=batch-" + UUID.randomUUID().toString().substring(0, 8))
			.run((context) -> {
				FixedWindowRateLimiter limiter = context.getBean(FixedWindowRateLimiter.class);
				Map<Integer, Long> scriptsBefore = scriptCalls();
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Boolean>> calls = new ArrayList<>();
				int perThread = 40;
				for (int t = 0; t < THREADS; t++) {
					int thread = t;
					for (int i = 0; i < perThread; i++) {
						// 4 ids of each tag: 2,000 calls for 8 ids of 100 permits each
						String id = "{" + tags.get((thread + i) % 2) + "}-" + ((thread + i) / 2 % 4);
						calls.add(pool.submit(() -> {
							start.await();
							return limiter.tryAcquire(id, limit).allowed();
						}));
					}
				}
				start.countDown();
				long allowed = 0;
				for (Future<Boolean> call : calls) {
					allowed += call.get(30, TimeUnit.SECONDS) ? 1 : 0;
				}
				assertThat(allowed).isEqualTo(8 * 100);
				Map<Integer, Long> scriptsAfter = scriptCalls();
				long scripts = scriptsAfter.entrySet()
					.stream()
					.mapToLong((entry) -> entry.getValue() - scriptsBefore.getOrDefault(entry.getKey(), 0L))
					.sum();
				// 50 callers on two slots: most calls travel in batches
				assertThat(scripts).isLessThan(calls.size() / 2);
			});
	}

	private static Map<Integer, Long> scriptCalls() {
		Map<Integer, Long> calls = new HashMap<>();
		for (RedisServerProcess master : cluster.masters()) {
			calls.put(master.port(), cluster.scriptCalls(master));
		}
		return calls;
	}

	@Test
	void spreadsTheKeysOfManyClientsOverEveryMaster() {
		this.runner.withPropertyValues("ratelimit.key-prefix=spread").run((context) -> {
			FixedWindowRateLimiter single = context.getBean(FixedWindowRateLimiter.class);
			SlidingWindowCounterRateLimiter multi = context.getBean(SlidingWindowCounterRateLimiter.class);
			// windows long enough that no key expires before it is counted
			List<RateLimit> limits = List.of(RateLimit.of(10, Duration.ofMinutes(1)), RateLimit.of(100, Duration.ofHours(1)));
			List<Future<?>> calls = new ArrayList<>();
			for (int i = 0; i < CLIENTS; i++) {
				String client = "client-" + i;
				calls.add(pool.submit(() -> {
					assertThat(single.tryAcquire(client, RateLimit.of(10, Duration.ofMinutes(1))).allowed()).isTrue();
					assertThat(multi.tryAcquire(client, limits, 1)).allMatch(RateLimitDecision::allowed);
				}));
			}
			for (Future<?> call : calls) {
				call.get(30, TimeUnit.SECONDS);
			}
			Map<Integer, Long> singleKeys = cluster.countKeys(cluster.masters(), "spread:fixed:*");
			Map<Integer, Long> multiKeys = cluster.countKeys(cluster.masters(), "spread:sliding-counter:*");
			System.out.printf("cluster: keys of %d clients (client-0 to client-%d) per master: single-limit keys "
					+ "spread:fixed:client-N, multi-limit keys spread:sliding-counter:{client-N}:1m and :1h%n", CLIENTS,
					CLIENTS - 1);
			int masters = cluster.masters().size();
			for (int i = 0; i < masters; i++) {
				int port = cluster.masters().get(i).port();
				System.out.printf("cluster:   master %d, slots %5d-%5d: %4d single-limit keys, %4d multi-limit keys%n",
						i + 1, i * SlotHash.SLOT_COUNT / masters, (i + 1) * SlotHash.SLOT_COUNT / masters - 1,
						singleKeys.get(port), multiKeys.get(port));
			}
			assertThat(singleKeys.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(CLIENTS);
			assertThat(multiKeys.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(2L * CLIENTS);
			// a third each, give or take far more than chance allows
			assertThat(singleKeys.values()).allSatisfy((count) -> assertThat(count).isBetween(850L, 1150L));
			assertThat(multiKeys.values()).allSatisfy((count) -> assertThat(count).isBetween(1700L, 2300L));
		});
	}

	private static List<RateLimiter> limiters(AssertableApplicationContext context) {
		return context.getBeansOfType(RateLimiter.class)
			.values()
			.stream()
			.sorted(Comparator.comparing(RateLimiter::algorithm))
			.toList();
	}

	private static String redisKey(RateLimiter limiter, String key) {
		return ((AlgorithmRateLimiter) limiter).redisKey(key);
	}

	private static int allowedCount(RateLimiter limiter, String key, RateLimit limit) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<Boolean>> results = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			results.add(pool.submit(() -> {
				start.await();
				return limiter.tryAcquire(key, limit).allowed();
			}));
		}
		start.countDown();
		int allowed = 0;
		for (Future<Boolean> result : results) {
			if (result.get(30, TimeUnit.SECONDS)) {
				allowed++;
			}
		}
		return allowed;
	}

}

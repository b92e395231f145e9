package dev.ratelimit.test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisCluster;
import dev.ratelimit.testsupport.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reset deletes every key under the application's prefix, on one server or on every master of a Cluster, and
 * nothing else; and forgets the refusals the denial cache remembers.
 */
class RateLimitBudgetsTests {

	private static final List<RateLimit> ONE_PER_MINUTE = List.of(RateLimit.of(1, Duration.ofMinutes(1)));

	private static final List<RateLimit> TWO_LIMITS = List.of(RateLimit.of(1, Duration.ofMinutes(1)),
			RateLimit.of(10, Duration.ofHours(1)));

	private final String prefix = "budgets-" + UUID.randomUUID().toString().substring(0, 8);

	private final LettuceConnectionFactory connectionFactory = RedisTestServer.shared().newConnectionFactory();

	private final StringRedisTemplate redis = template(this.connectionFactory);

	@AfterEach
	void close() {
		this.redis.delete(keysOf(this.prefix + "*"));
		this.connectionFactory.destroy();
	}

	@Test
	void deletesEveryKeyUnderThePrefixAndForgetsRememberedRefusals() {
		LocalDenialCache denialCache = new LocalDenialCache(100);
		RedisRateLimiter fixed = limiter(Algorithm.FIXED_WINDOW, denialCache);
		RedisRateLimiter gcra = limiter(Algorithm.GCRA, denialCache);
		assertThat(fixed.tryAcquire("a", ONE_PER_MINUTE, 1).get(0).allowed()).isTrue();
		assertThat(fixed.tryAcquire("a", ONE_PER_MINUTE, 1).get(0).allowed()).isFalse();
		assertThat(gcra.tryAcquire("b", TWO_LIMITS, 1).get(0).allowed()).isTrue();
		assertThat(denialCache.size()).isEqualTo(1);
		// keys that only look alike: another prefix that starts with this one, and the prefix alone
		this.redis.opsForValue().set(this.prefix + "x:fixed:a", "1");
		this.redis.opsForValue().set(this.prefix, "1");
		assertThat(keysOf(this.prefix + ":*")).hasSize(3);

		long deleted = new RateLimitBudgets(this.connectionFactory, this.prefix, denialCache).resetAll();

		assertThat(deleted).isEqualTo(3);
		assertThat(keysOf(this.prefix + ":*")).isEmpty();
		assertThat(keysOf(this.prefix + "*")).containsExactlyInAnyOrder(this.prefix + "x:fixed:a", this.prefix);
		assertThat(denialCache.size()).isZero();
		assertThat(fixed.tryAcquire("a", ONE_PER_MINUTE, 1).get(0).allowed()).isTrue();
	}

	@Test
	void deletesMoreKeysThanOneBatchHolds() {
		Map<String, String> keys = new HashMap<>();
		for (int i = 0; i < 1_234; i++) {
			keys.put(this.prefix + ":fixed:" + i, "1");
		}
		this.redis.opsForValue().multiSet(keys);

		assertThat(new RateLimitBudgets(this.connectionFactory, this.prefix, null).resetAll()).isEqualTo(1_234);
		assertThat(keysOf(this.prefix + ":*")).isEmpty();
	}

	@Test
	void deletesTheKeysOfEveryMasterOfACluster() {
		try (RedisCluster cluster = RedisCluster.start(RedisBinary.find(), 3, 0)) {
			LettuceConnectionFactory clustered = new LettuceConnectionFactory(
					new RedisClusterConfiguration(List.of(cluster.nodesProperty().split(","))));
			clustered.afterPropertiesSet();
			clustered.start();
			try {
				StringRedisTemplate redis = template(clustered);
				// hash tags that land on each of the three masters' slot ranges, and one more key elsewhere
				for (String tag : List.of("a", "b", "c", "d", "e", "f")) {
					redis.opsForValue().set(this.prefix + ":fixed:{" + tag + "}:60", "1");
				}
				redis.opsForValue().set("other:fixed:{a}:60", "1");
				assertThat(List.of("a", "b", "c", "d", "e", "f")
					.stream()
					.map((tag) -> cluster.formedMasterOfKey("{" + tag + "}"))
					.distinct()).as("masters that hold a key").hasSize(3);

				long deleted = new RateLimitBudgets(clustered, this.prefix, null).resetAll();

				assertThat(deleted).isEqualTo(6);
				for (String tag : List.of("a", "b", "c", "d", "e", "f")) {
					assertThat(redis.hasKey(this.prefix + ":fixed:{" + tag + "}:60")).isFalse();
				}
				assertThat(redis.hasKey("other:fixed:{a}:60")).isTrue();
			}
			finally {
				clustered.destroy();
			}
		}
	}

	private RedisRateLimiter limiter(Algorithm algorithm, LocalDenialCache denialCache) {
		return RedisRateLimiter.builder(algorithm, this.redis).keyPrefix(this.prefix).denialCache(denialCache).build();
	}

	private Set<String> keysOf(String pattern) {
		Set<String> keys = this.redis.keys(pattern);
		return (keys != null) ? keys : Set.of();
	}

	private static StringRedisTemplate template(LettuceConnectionFactory connectionFactory) {
		StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
		template.afterPropertiesSet();
		return template;
	}

}

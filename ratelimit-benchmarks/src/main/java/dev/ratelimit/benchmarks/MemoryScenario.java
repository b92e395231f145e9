package dev.ratelimit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.RateLimit;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisRateLimiter;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Redis memory per key ({@code MEMORY USAGE}) once a key's budget is spent, for our algorithms, Bucket4j and
 * Redisson at limits from 10 to 1,000,000.
 */
final class MemoryScenario {

	private MemoryScenario() {
	}

	/** Returns the bytes of each system's key at each limit, as {@code measurements.json} holds them under {@code memory}. */
	static List<Map<String, Object>> run(BenchmarkRedis redis) {
		List<Map<String, Object>> results = new ArrayList<>();
		LettuceConnectionFactory factory = Contenders.connectionFactory(redis);
		try (LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofSeconds(2))) {
			// time stands still while a budget is spent, so that nothing refills meanwhile
			Clock clock = Clock.fixed(Instant.now(), ZoneOffset.UTC);
			for (String algorithm : List.of("fixed-window", "sliding-window-counter", "token-bucket", "gcra",
					"sliding-window-log")) {
				boolean log = algorithm.equals("sliding-window-log");
				for (int limit : log ? new int[] { 10, 1000 } : new int[] { 10, 1000, 1_000_000 }) {
					RedisRateLimiter limiter = OurContender.limiter(algorithm, runner).keyPrefix("memory")
						.clock(clock)
						.build();
					String id = "memory-" + limit;
					RateLimit rateLimit = RateLimit.of(limit, Duration.ofMinutes(1));
					if (log) {
						spend(limit, () -> limiter.tryAcquire(id, rateLimit).allowed());
					}
					else {
						// the whole budget in one call: the state is the same as after a permit at a time
						if (!limiter.tryAcquire(id, rateLimit, limit).allowed() || limiter.tryAcquire(id, rateLimit).allowed()) {
							throw new IllegalStateException(algorithm + " did not spend a budget of " + limit);
						}
					}
					results.add(Measurements.row("system", algorithm, "limit", limit, "bytes", memoryUsage(redis, limiter.redisKey(id))));
				}
			}
		}
		finally {
			factory.destroy();
		}
		for (int limit : new int[] { 10, 1000 }) {
			String[] keys = { "memory-" + limit };
			// they take the client's or the server's time: a day-long window refills nothing while spending
			RateLimit rateLimit = RateLimit.of(limit, Duration.ofDays(1));
			try (Contender bucket4j = Contenders.create("bucket4j", redis, keys, rateLimit)) {
				spend(limit, () -> bucket4j.tryAcquire(0));
				results.add(Measurements.row("system", "bucket4j", "limit", limit, "bytes",
						memoryUsage(redis, "bucket4j:" + keys[0])));
			}
			try (Contender redisson = Contenders.create("redisson", redis, keys, rateLimit)) {
				spend(limit, () -> redisson.tryAcquire(0));
				String name = "redisson:" + keys[0];
				long bytes = 0;
				for (Object key : (List<?>) redis.admin().call("KEYS", "*redisson:*")) {
					String redisKey = new String((byte[]) key, StandardCharsets.UTF_8);
					if (redisKey.equals(name) || redisKey.startsWith("{" + name + "}")) {
						bytes += memoryUsage(redis, redisKey);
					}
				}
				results.add(Measurements.row("system", "redisson", "limit", limit, "bytes", bytes));
			}
		}
		Measurements.log("memory " + results);
		return results;
	}

	private static void spend(int limit, java.util.function.BooleanSupplier decide) {
		for (int i = 0; i < limit; i++) {
			if (!decide.getAsBoolean()) {
				throw new IllegalStateException("permit " + (i + 1) + " of " + limit + " was refused");
			}
		}
		if (decide.getAsBoolean()) {
			throw new IllegalStateException("permit " + (limit + 1) + " of " + limit + " was granted");
		}
	}

	private static long memoryUsage(BenchmarkRedis redis, String key) {
		Object bytes = redis.admin().call("MEMORY", "USAGE", key, "SAMPLES", "0");
		if (bytes == null) {
			throw new IllegalStateException("No key " + key);
		}
		return (Long) bytes;
	}

}

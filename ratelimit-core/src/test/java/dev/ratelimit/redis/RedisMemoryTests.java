package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.RateLimit;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis memory per key ({@code MEMORY USAGE}) with the budget fully spent: constant for every algorithm
 * but the sliding log, which grows with the limit. The algorithm table of docs/limiters.md quotes these.
 */
class RedisMemoryTests {

	private static final RedisScript<Long> MEMORY_USAGE = RedisScript
		.of("return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')", Long.class);

	private final StringRedisTemplate redis = RedisTestServer.shared().template();

	// time stands still while the budget is spent, so that nothing refills meanwhile
	private final Clock clock = Clock.fixed(Instant.now(), ZoneOffset.UTC);

	@ParameterizedTest(name = "{0} at limit {1}")
	@CsvSource({ "fixed-window, 10", "fixed-window, 1000", "sliding-window-counter, 10",
			"sliding-window-counter, 1000", "token-bucket, 10", "token-bucket, 1000", "gcra, 10", "gcra, 1000" })
	void keepsConstantMemoryPerKeyWhateverTheLimit(String algorithm, int limit) {
		AlgorithmRateLimiter limiter = limiter(algorithm);
		String id = "memory-" + UUID.randomUUID();
		spend(limiter, id, limit);
		long bytes = memoryUsage(limiter.redisKey(id));
		System.out.printf("%s limit=%d: %d bytes%n", algorithm, limit, bytes);
		assertThat(bytes).isLessThan(200);
	}

	@ParameterizedTest(name = "sliding-window-log at limit {0}")
	@ValueSource(ints = { 10, 100, 1000 })
	void slidingWindowLogKeepsAnEntryPerPermit(int limit) {
		SlidingWindowRateLimiter limiter = new SlidingWindowRateLimiter(this.redis, "rate", this.clock);
		String id = "memory-" + UUID.randomUUID();
		spend(limiter, id, limit);
		long bytes = memoryUsage(limiter.redisKey(id));
		System.out.printf("sliding-window-log limit=%d: %d bytes%n", limit, bytes);
		assertThat(this.redis.opsForZSet().zCard(limiter.redisKey(id))).isEqualTo(limit);
		assertThat(bytes).isGreaterThan(limit * 20L);
	}

	private AlgorithmRateLimiter limiter(String algorithm) {
		return switch (algorithm) {
			case "fixed-window" -> new FixedWindowRateLimiter(this.redis, "rate", this.clock);
			case "sliding-window-counter" -> new SlidingWindowCounterRateLimiter(this.redis, "rate", this.clock);
			case "token-bucket" -> new TokenBucketRateLimiter(this.redis, "rate", this.clock);
			case "gcra" -> new GcraRateLimiter(this.redis, "rate", this.clock);
			default -> throw new IllegalArgumentException(algorithm);
		};
	}

	private static void spend(AlgorithmRateLimiter limiter, String id, int limit) {
		RateLimit rateLimit = RateLimit.of(limit, Duration.ofMinutes(1));
		for (int i = 0; i < limit; i++) {
			assertThat(limiter.tryAcquire(id, rateLimit).allowed()).isTrue();
		}
		assertThat(limiter.tryAcquire(id, rateLimit).allowed()).isFalse();
	}

	private long memoryUsage(String key) {
		Long bytes = this.redis.execute(MEMORY_USAGE, List.of(key));
		return bytes;
	}

}

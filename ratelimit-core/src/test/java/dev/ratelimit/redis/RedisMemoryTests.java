package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.RateLimit;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis memory per key ({@code MEMORY USAGE}) with the budget fully spent: constant for the fixed
 * window, growing with the limit for the sliding log. The README's algorithm table quotes these.
 */
class RedisMemoryTests {

	private static final RedisScript<Long> MEMORY_USAGE = RedisScript
		.of("return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')", Long.class);

	private final StringRedisTemplate redis = RedisTestServer.shared().template();

	@ParameterizedTest
	@ValueSource(ints = { 10, 100, 1000 })
	void fixedWindowKeepsOneSmallHashWhateverTheLimit(int limit) {
		FixedWindowRateLimiter limiter = new FixedWindowRateLimiter(this.redis);
		String id = "memory-" + UUID.randomUUID();
		spend(limiter, id, limit);
		long bytes = memoryUsage(limiter.redisKey(id));
		System.out.printf("fixed-window limit=%d: %d bytes%n", limit, bytes);
		assertThat(bytes).isLessThan(200);
	}

	@ParameterizedTest
	@ValueSource(ints = { 10, 100, 1000 })
	void slidingWindowLogKeepsAnEntryPerPermit(int limit) {
		SlidingWindowRateLimiter limiter = new SlidingWindowRateLimiter(this.redis);
		String id = "memory-" + UUID.randomUUID();
		spend(limiter, id, limit);
		long bytes = memoryUsage(limiter.redisKey(id));
		System.out.printf("sliding-window-log limit=%d: %d bytes%n", limit, bytes);
		assertThat(this.redis.opsForZSet().zCard(limiter.redisKey(id))).isEqualTo(limit);
		assertThat(bytes).isGreaterThan(limit * 20L);
	}

	private static void spend(AbstractRedisRateLimiter limiter, String id, int limit) {
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

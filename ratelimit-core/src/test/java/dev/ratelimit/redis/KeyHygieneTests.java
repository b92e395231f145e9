package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whatever the traffic and whatever clients send as ids, every key has a TTL, stays short, and keeps
 * the structure the limiter gave it.
 */
class KeyHygieneTests {

	private final StringRedisTemplate redis = RedisTestServer.shared().template();

	private final String prefix = "hygiene-" + UUID.randomUUID().toString().substring(0, 8);

	private final MutableClock clock = MutableClock.at("2026-07-07T07:07:07Z");

	@Test
	void leavesEveryKeyWithATtlAndABoundedInertNameAfterAnyMixOfTraffic() {
		List<RateLimiter> limiters = Stream.of(Algorithm.values())
			.map((algorithm) -> (RateLimiter) RedisRateLimiter.builder(algorithm, this.redis)
				.keyPrefix(this.prefix)
				.clock(this.clock)
				.build())
			.toList();
		List<String> ids = new ArrayList<>(List.of("plain", "a:b:c", "{tag}", "}{", "*", "?[x]", "line\nbreak",
				"nul\u0000byte", "tab\tand\rreturn", "ünïcødé ✓", "~fake", "x".repeat(1 << 20)));
		Random random = new Random(7);
		for (int i = 0; i < 20; i++) {
			ids.add("client-" + random.nextInt(1_000_000));
		}
		List<List<RateLimit>> limitSets = List.of(List.of(RateLimit.of(3, Duration.ofSeconds(1))),
				List.of(RateLimit.of(5, Duration.ofMillis(1500)), RateLimit.of(20, Duration.ofMinutes(1))),
				List.of(RateLimit.of(2, Duration.ofHours(1))));
		for (int i = 0; i < 3_000; i++) {
			RateLimiter limiter = limiters.get(random.nextInt(limiters.size()));
			List<RateLimit> limits = limitSets.get(random.nextInt(limitSets.size()));
			String id = ids.get(random.nextInt(ids.size()));
			long permits = 1 + random.nextInt(2);
			limiter.tryAcquire(id, limits, permits);
			this.clock.advance(Duration.ofMillis(random.nextInt(400)));
		}
		List<String> keys = new ArrayList<>();
		try (Cursor<String> cursor = this.redis.scan(ScanOptions.scanOptions().match(this.prefix + ":*").count(1000)
			.build())) {
			cursor.forEachRemaining(keys::add);
		}
		assertThat(keys).hasSizeGreaterThan(50);
		for (String key : keys) {
			// -1 is a key without a TTL; -2 one that expired since the scan
			assertThat(this.redis.getExpire(key, TimeUnit.MILLISECONDS)).as("TTL of %s", key).isNotEqualTo(-1L);
			assertThat(key.length()).as(key).isLessThanOrEqualTo(200);
			// the only braces are the hash tag a multi-limit key gets; no id text reaches the structure
			assertThat(key.replaceFirst("\\{[^{}]*\\}", "")).as(key).doesNotContain("{", "}", "*", "?", "[", "\n", "\u0000");
		}
	}

}

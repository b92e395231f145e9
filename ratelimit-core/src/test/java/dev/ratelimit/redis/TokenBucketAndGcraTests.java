package dev.ratelimit.redis;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token bucket and GCRA, which define the same behaviour: a burst, then one permit every
 * {@code window / limit}.
 */
class TokenBucketAndGcraTests {

	private static final StringRedisTemplate redis = RedisTestServer.shared().template();

	private final MutableClock clock = MutableClock.at("2026-02-03T04:05:06Z");

	private final String key = "smooth-" + UUID.randomUUID();

	static Stream<Arguments> limiters() {
		return Stream.of(
				Arguments.of(Named.<BiFunction<StringRedisTemplate, MutableClock, AlgorithmRateLimiter>>of(
						"token bucket", (template, clock) -> new TokenBucketRateLimiter(template, "rate", clock))),
				Arguments.of(Named.<BiFunction<StringRedisTemplate, MutableClock, AlgorithmRateLimiter>>of("gcra",
						(template, clock) -> new GcraRateLimiter(template, "rate", clock))));
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void decidesAMillionADayExactly(BiFunction<StringRedisTemplate, MutableClock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, this.clock);
		RateLimit million = RateLimit.of(1_000_000, Duration.ofDays(1));
		RateLimitDecision first = limiter.tryAcquire(this.key, million, 1_000);
		assertThat(first.allowed()).isTrue();
		assertThat(first.limit()).isEqualTo(1_000_000);
		assertThat(first.remaining()).isEqualTo(999_000);
		// one permit every 86.4 ms, exactly: a burst of one is refused until then
		String other = this.key + "-burst";
		RateLimit oneAtATime = million.withBurst(1);
		assertThat(limiter.tryAcquire(other, oneAtATime).allowed()).isTrue();
		RateLimitDecision refused = limiter.tryAcquire(other, oneAtATime);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofNanos(86_400_000));
		this.clock.advance(Duration.ofNanos(86_400_000));
		assertThat(limiter.tryAcquire(other, oneAtATime).allowed()).isTrue();
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void grantsTheBurstThenRefuses(BiFunction<StringRedisTemplate, MutableClock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, this.clock);
		RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1)).withBurst(4);
		for (long remaining = 3; remaining >= 0; remaining--) {
			RateLimitDecision decision = limiter.tryAcquire(this.key, limit);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(remaining);
		}
		RateLimitDecision refused = limiter.tryAcquire(this.key, limit);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(6));
		assertThat(refused.resetAfter()).isEqualTo(Duration.ofSeconds(24));
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void returnsOnePermitExactlyEveryWindowOverLimit(
			BiFunction<StringRedisTemplate, MutableClock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, this.clock);
		// 3 per second: one permit every 333,333.3 µs, granted at the first whole µs after it
		RateLimit limit = RateLimit.of(3, Duration.ofSeconds(1));
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.tryAcquire(this.key, limit).allowed()).isTrue();
		}
		long[] returnsAt = { 333_334, 666_667, 1_000_000 };
		long elapsed = 0;
		for (long at : returnsAt) {
			this.clock.advance(Duration.ofNanos((at - 1 - elapsed) * 1000));
			assertThat(limiter.tryAcquire(this.key, limit).allowed()).as("at %dµs", at - 1).isFalse();
			this.clock.advance(Duration.ofNanos(1000));
			assertThat(limiter.tryAcquire(this.key, limit).allowed()).as("at %dµs", at).isTrue();
			elapsed = at;
		}
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void refillsNoFurtherThanTheBurst(BiFunction<StringRedisTemplate, MutableClock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, this.clock);
		RateLimit limit = RateLimit.of(2, Duration.ofSeconds(1)).withBurst(3);
		assertThat(limiter.tryAcquire(this.key, limit).remaining()).isEqualTo(2);
		this.clock.advance(Duration.ofHours(5));
		RateLimitDecision afterIdle = limiter.tryAcquire(this.key, limit, 3);
		assertThat(afterIdle.allowed()).isTrue();
		assertThat(afterIdle.remaining()).isZero();
		assertThat(afterIdle.resetAfter()).isEqualTo(Duration.ofMillis(1500));
		assertThat(redis.getExpire(limiter.redisKey(this.key))).isBetween(1L, 2L);
	}

	@Test
	void gcraStoresOneTimePerKey() {
		GcraRateLimiter limiter = new GcraRateLimiter(redis, "rate", this.clock);
		limiter.tryAcquire(this.key, RateLimit.of(3, Duration.ofSeconds(1)));
		String stored = redis.opsForValue().get(limiter.redisKey(this.key));
		long now = this.clock.instant().getEpochSecond() * 1_000_000;
		// the next permit's arrival time: a third of a second on, as µs and a remainder in thirds of a µs
		assertThat(stored).isEqualTo((now + 333_333) + ":1");
	}

	@Test
	void tokenBucketReadsTheHashOfThePreviousVersionAndReplacesItWhenItGrants() {
		TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(redis, "rate", this.clock);
		String redisKey = limiter.redisKey(this.key);
		long now = this.clock.instant().getEpochSecond() * 1_000_000;
		// the earlier format: an empty bucket, refilled now, tokens counted in units of 1/1,000,000
		redis.opsForHash().putAll(redisKey, Map.of("t", "0", "ts", Long.toString(now), "w", "1000000"));
		redis.expire(redisKey, Duration.ofSeconds(1));
		RateLimit twoPerSecond = RateLimit.of(2, Duration.ofSeconds(1));
		RateLimitDecision refused = limiter.tryAcquire(this.key, twoPerSecond);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(500));
		assertThat(redis.type(redisKey).code()).isEqualTo("hash");
		this.clock.advance(Duration.ofMillis(500));
		RateLimitDecision granted = limiter.tryAcquire(this.key, twoPerSecond);
		assertThat(granted.allowed()).isTrue();
		assertThat(granted.remaining()).isZero();
		assertThat(redis.opsForValue().get(redisKey)).isEqualTo("0:" + (now + 500_000) + ":1000000");
	}

}

package dev.ratelimit.redis;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class FixedWindowRateLimiterTests {

	private static final RateLimit FIVE_PER_MINUTE = RateLimit.of(5, Duration.ofMinutes(1));

	private final StringRedisTemplate redis = RedisTestServer.shared().template();

	private final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");

	private final FixedWindowRateLimiter limiter = new FixedWindowRateLimiter(this.redis, "rate", this.clock);

	private final String key = "client-" + UUID.randomUUID();

	@Test
	void blocksTheFourthCallOfTheSeedScenario() {
		FixedWindowRateLimiter seedLimiter = new FixedWindowRateLimiter(this.redis);
		assertThat(seedLimiter.isAllowed(this.key, 3, 60)).isTrue();
		assertThat(seedLimiter.isAllowed(this.key, 3, 60)).isTrue();
		assertThat(seedLimiter.isAllowed(this.key, 3, 60)).isTrue();
		assertThat(seedLimiter.isAllowed(this.key, 3, 60)).isFalse();
	}

	@Test
	void keepsTheSeedKeyAndGivesItTheWindowAsTtl() {
		new FixedWindowRateLimiter(this.redis).isAllowed(this.key, 3, 60);
		String redisKey = "rate:fixed:" + this.key;
		assertThat(this.redis.hasKey(redisKey)).isTrue();
		assertThat(this.redis.getExpire(redisKey)).isBetween(58L, 60L);
	}

	@Test
	void usesTheConfiguredKeyPrefix() {
		new FixedWindowRateLimiter(this.redis, "shop", null).isAllowed(this.key, 3, 60);
		assertThat(this.redis.hasKey("shop:fixed:" + this.key)).isTrue();
		assertThat(this.redis.hasKey("rate:fixed:" + this.key)).isFalse();
	}

	@Test
	void countsRemainingDownToZeroAndRejectsUntilTheWindowEnds() {
		for (long expected = 4; expected >= 0; expected--) {
			this.clock.advance(Duration.ofSeconds(1));
			RateLimitDecision decision = this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(expected);
			assertThat(decision.retryAfter()).isZero();
			// the window opened with the first call; each call comes one second after the previous one
			assertThat(decision.resetAfter()).isEqualTo(Duration.ofSeconds(60 - (4 - expected)));
		}
		this.clock.advance(Duration.ofMillis(20_250));
		RateLimitDecision rejected = this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.remaining()).isZero();
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(60_000 - 4_000 - 20_250));
		assertThat(rejected.resetAfter()).isEqualTo(rejected.retryAfter());
	}

	@Test
	void opensANewWindowOnceTheOldOneHasPassed() {
		for (int i = 0; i < 5; i++) {
			assertThat(this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE).allowed()).isTrue();
		}
		this.clock.advance(Duration.ofSeconds(59).plusMillis(999));
		assertThat(this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE).allowed()).isFalse();
		this.clock.advance(Duration.ofMillis(1));
		RateLimitDecision fresh = this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE);
		assertThat(fresh.allowed()).isTrue();
		assertThat(fresh.remaining()).isEqualTo(4);
		assertThat(fresh.resetAfter()).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void takesSeveralPermitsAllOrNothing() {
		assertThat(this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE, 3).remaining()).isEqualTo(2);
		RateLimitDecision tooMany = this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE, 3);
		assertThat(tooMany.allowed()).isFalse();
		assertThat(tooMany.remaining()).isEqualTo(2);
		assertThat(this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE, 2).remaining()).isZero();
	}

	@Test
	void doesNotChargeRejectedCalls() {
		for (int i = 0; i < 5; i++) {
			this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE);
		}
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.tryAcquire(this.key, FIVE_PER_MINUTE).allowed()).isFalse();
		}
		assertThat(this.redis.opsForHash().get(this.limiter.redisKey(this.key), "n")).isEqualTo("5");
	}

}

package dev.ratelimit.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class SlidingWindowRateLimiterTests {

	private static final RateLimit TEN_PER_SECOND = RateLimit.of(10, Duration.ofSeconds(1));

	private final StringRedisTemplate redis = RedisTestServer.shared().template();

	private final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");

	private final SlidingWindowRateLimiter limiter = new SlidingWindowRateLimiter(this.redis, "rate", this.clock);

	private final String key = "client-" + UUID.randomUUID();

	@Test
	void allowsUpToTheLimitWithTheSeedMethod() {
		SlidingWindowRateLimiter seedLimiter = new SlidingWindowRateLimiter(this.redis);
		for (int i = 0; i < 3; i++) {
			assertThat(seedLimiter.isAllowed(this.key, 3, 60_000)).isTrue();
		}
		assertThat(seedLimiter.isAllowed(this.key, 3, 60_000)).isFalse();
		assertThat(this.redis.opsForZSet().zCard("rate:sliding:" + this.key)).isEqualTo(3);
		assertThat(this.redis.getExpire("rate:sliding:" + this.key)).isBetween(58L, 60L);
	}

	@Test
	void countsEveryCallOfTheSameMicrosecondSeparately() {
		// the seed used the timestamp as the member, so these ten calls made one entry
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND).allowed()).isTrue();
		}
		assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND).allowed()).isFalse();
		assertThat(this.redis.opsForZSet().zCard(this.limiter.redisKey(this.key))).isEqualTo(10);
	}

	@Test
	void letsPermitsBackInAsTheirEntriesLeaveTheWindow() {
		for (int i = 0; i < 5; i++) {
			assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND).allowed()).isTrue();
		}
		this.clock.advance(Duration.ofMillis(600));
		for (int i = 0; i < 5; i++) {
			assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND).remaining()).isEqualTo(4 - i);
		}
		this.clock.advance(Duration.ofMillis(399));
		RateLimitDecision rejected = this.limiter.tryAcquire(this.key, TEN_PER_SECOND);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(1));
		assertThat(rejected.resetAfter()).isEqualTo(Duration.ofMillis(601));

		this.clock.advance(Duration.ofMillis(1));
		RateLimitDecision allowed = this.limiter.tryAcquire(this.key, TEN_PER_SECOND, 5);
		assertThat(allowed.allowed()).isTrue();
		assertThat(allowed.remaining()).isZero();
		assertThat(allowed.resetAfter()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void reportsTheWaitUntilEnoughEntriesLeaveForSeveralPermits() {
		for (int i = 0; i < 10; i++) {
			this.limiter.tryAcquire(this.key, TEN_PER_SECOND);
			this.clock.advance(Duration.ofMillis(10));
		}
		// entries at 0, 10, ..., 90 ms; now is 100 ms; three permits need the three oldest gone
		RateLimitDecision rejected = this.limiter.tryAcquire(this.key, TEN_PER_SECOND, 3);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(920));
		this.clock.advance(Duration.ofMillis(919));
		assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND, 3).allowed()).isFalse();
		this.clock.advance(Duration.ofMillis(1));
		assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND, 3).allowed()).isTrue();
	}

	@Test
	void neverLetsMoreThanTheLimitIntoAnyWindowAcrossItsBoundary() {
		// the fixed window's boundary burst: 10 at the end of one window and 10 at the start of the next
		this.clock.advance(Duration.ofMillis(990));
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND).allowed()).isTrue();
		}
		this.clock.advance(Duration.ofMillis(20));
		assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND).allowed()).isFalse();
	}

	@Test
	void countsTheResetFromTheNewestEntryWhenTheClockHasSteppedBack() {
		this.clock.advance(Duration.ofMillis(500));
		assertThat(this.limiter.tryAcquire(this.key, TEN_PER_SECOND).resetAfter()).isEqualTo(Duration.ofSeconds(1));
		this.clock.advance(Duration.ofMillis(-300));
		RateLimitDecision granted = this.limiter.tryAcquire(this.key, TEN_PER_SECOND);
		assertThat(granted.allowed()).isTrue();
		// the entry taken 300 ms "later" leaves the window last
		assertThat(granted.resetAfter()).isEqualTo(Duration.ofMillis(1300));
		assertThat(this.redis.getExpire(this.limiter.redisKey(this.key), TimeUnit.MILLISECONDS))
			.isGreaterThan(1200L);
	}

}

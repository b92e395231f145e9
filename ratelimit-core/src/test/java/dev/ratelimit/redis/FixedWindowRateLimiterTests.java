package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.RedisCallback;
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

	@Test
	void opensAWindowOnTheServersClockThatEndsWithItsKey() {
		FixedWindowRateLimiter serverTime = new FixedWindowRateLimiter(this.redis);
		String redisKey = serverTime.redisKey(this.key);
		RateLimit twoPerMinute = RateLimit.of(2, Duration.ofMinutes(1));
		RateLimitDecision first = serverTime.tryAcquire(this.key, twoPerMinute);
		assertThat(first.resetAfter()).isEqualTo(Duration.ofMinutes(1));
		// the count alone: the key's TTL is the window's clock
		assertThat(this.redis.<String, String>opsForHash().entries(redisKey)).isEqualTo(Map.of("n", "1"));
		assertThat(this.redis.getExpire(redisKey, TimeUnit.MILLISECONDS)).isBetween(55_000L, 60_000L);
		RateLimitDecision second = serverTime.tryAcquire(this.key, twoPerMinute);
		assertThat(second.remaining()).isZero();
		assertThat(second.resetAfter()).isLessThanOrEqualTo(Duration.ofMinutes(1)).isGreaterThan(Duration.ofSeconds(55));
		RateLimitDecision refused = serverTime.tryAcquire(this.key, twoPerMinute);
		long ttl = this.redis.getExpire(redisKey, TimeUnit.MILLISECONDS);
		assertThat(refused.allowed()).isFalse();
		// never early: the key outlives the retry time by less than the millisecond Redis counts in
		assertThat(refused.retryAfter()).isEqualTo(refused.resetAfter())
			.isLessThanOrEqualTo(second.resetAfter())
			.isGreaterThanOrEqualTo(Duration.ofMillis(ttl));
	}

	@Test
	void countsOnInAWindowLeftByThePreviousVersionOfTheScript() {
		FixedWindowRateLimiter serverTime = new FixedWindowRateLimiter(this.redis);
		String redisKey = serverTime.redisKey(this.key);
		long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands()
			.time(TimeUnit.MICROSECONDS));
		// the earlier format: the window's start and count, on the server's clock, 10 s into a minute
		this.redis.opsForHash().putAll(redisKey, Map.of("s", Long.toString(now - 10_000_000), "n", "2"));
		this.redis.expire(redisKey, Duration.ofSeconds(50));
		RateLimit threePerMinute = RateLimit.of(3, Duration.ofMinutes(1));
		RateLimitDecision last = serverTime.tryAcquire(this.key, threePerMinute);
		assertThat(last.allowed()).isTrue();
		assertThat(last.remaining()).isZero();
		// its end is read from the TTL the earlier version set with it: within the millisecond after the TTL
		Duration end = Duration.ofSeconds(50).plusMillis(1);
		assertThat(last.resetAfter()).isBetween(Duration.ofSeconds(45), end);
		RateLimitDecision refused = serverTime.tryAcquire(this.key, threePerMinute);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isBetween(Duration.ofSeconds(45), end);
		assertThat(this.redis.opsForHash().get(redisKey, "n")).isEqualTo("3");
	}

	@Test
	void endsAWindowWhenItWasToEndWhenItOpenedWhateverLaterCallsPass() {
		// a calendar quota passes the time left in its period: 10 minutes, then 6, then 1
		assertThat(this.limiter.tryAcquire(this.key, RateLimit.of(3, Duration.ofMinutes(10))).allowed()).isTrue();
		this.clock.advance(Duration.ofMinutes(4));
		RateLimitDecision second = this.limiter.tryAcquire(this.key, RateLimit.of(3, Duration.ofMinutes(6)));
		assertThat(second.remaining()).isEqualTo(1);
		assertThat(second.resetAfter()).isEqualTo(Duration.ofMinutes(6));
		assertThat(this.redis.getExpire(this.limiter.redisKey(this.key), TimeUnit.MILLISECONDS))
			.isBetween(Duration.ofMinutes(5).toMillis(), Duration.ofMinutes(6).toMillis());
		this.clock.advance(Duration.ofMinutes(5));
		assertThat(this.limiter.tryAcquire(this.key, RateLimit.of(3, Duration.ofMinutes(1))).remaining()).isZero();
		assertThat(this.limiter.tryAcquire(this.key, RateLimit.of(3, Duration.ofMinutes(1))).allowed()).isFalse();
		this.clock.advance(Duration.ofMinutes(1));
		assertThat(this.limiter.tryAcquire(this.key, RateLimit.of(3, Duration.ofMinutes(1))).remaining()).isEqualTo(2);
	}

	@Test
	void keepsTheEndOfAWindowWhenAnotherClockTakesItOver() {
		RateLimit twoPerHour = RateLimit.of(2, Duration.ofHours(1));
		FixedWindowRateLimiter serverTime = new FixedWindowRateLimiter(this.redis);
		assertThat(serverTime.tryAcquire(this.key, twoPerHour).allowed()).isTrue();
		// an instance with a clock of its own (the system's, close to the server's here) counts on in it
		FixedWindowRateLimiter ownClock = new FixedWindowRateLimiter(this.redis, "rate", Clock.systemUTC());
		RateLimitDecision second = ownClock.tryAcquire(this.key, twoPerHour);
		assertThat(second.allowed()).isTrue();
		assertThat(second.remaining()).isZero();
		assertThat(second.resetAfter()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
		assertThat(this.redis.opsForHash().keys(serverTime.redisKey(this.key))).isEqualTo(Set.of("n", "e"));
		RateLimitDecision refused = serverTime.tryAcquire(this.key, twoPerHour);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
	}

	@Test
	void endsAWindowOpenedUnderALongerOneWithinTheCurrentLength() {
		FixedWindowRateLimiter serverTime = new FixedWindowRateLimiter(this.redis);
		assertThat(serverTime.tryAcquire(this.key, RateLimit.of(1, Duration.ofHours(1))).allowed()).isTrue();
		// the window is shortened to a minute: the permit taken counts for at most a minute more
		RateLimitDecision refused = serverTime.tryAcquire(this.key, RateLimit.of(1, Duration.ofMinutes(1)));
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofMinutes(1));
		assertThat(this.redis.getExpire(serverTime.redisKey(this.key), TimeUnit.MILLISECONDS)).isBetween(55_000L, 60_000L);
	}

	@Test
	void takesTheEndOfAWindowOnTheServersClockFromItsKeysTtl() {
		FixedWindowRateLimiter serverTime = new FixedWindowRateLimiter(this.redis);
		RateLimit onePerMinute = RateLimit.of(1, Duration.ofMinutes(1));
		assertThat(serverTime.tryAcquire(this.key, onePerMinute).allowed()).isTrue();
		String redisKey = serverTime.redisKey(this.key);
		// a TTL within the window is the window's end, to the millisecond after it, and is kept as it is
		this.redis.expire(redisKey, Duration.ofMillis(30_000));
		RateLimitDecision refused = serverTime.tryAcquire(this.key, onePerMinute);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isBetween(Duration.ofMillis(29_000), Duration.ofMillis(30_001));
		assertThat(refused.resetAfter()).isEqualTo(refused.retryAfter());
		assertThat(this.redis.getExpire(redisKey, TimeUnit.MILLISECONDS)).isBetween(29_000L, 30_000L);
		// as is a TTL of the whole window
		this.redis.expire(redisKey, Duration.ofMillis(60_000));
		assertThat(serverTime.tryAcquire(this.key, onePerMinute).retryAfter()).isBetween(Duration.ofMillis(59_000),
				Duration.ofMillis(60_000));
		assertThat(this.redis.getExpire(redisKey, TimeUnit.MILLISECONDS)).isBetween(59_000L, 60_000L);
	}

}

package dev.ratelimit.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys Redis refused are refused again without a Redis call, exactly until Redis would grant them.
 */
class LocalDenialCacheTests {

	private static final RateLimit FIVE_PER_TEN_SECONDS = RateLimit.of(5, Duration.ofSeconds(10));

	private final MutableClock clock = MutableClock.at("2026-04-04T04:04:04Z");

	// the cache and Redis share the test's clock, so that expiry can be probed to the microsecond
	private final LocalDenialCache cache = new LocalDenialCache(1_000, () -> nanos(this.clock.instant()));

	private final AtomicInteger redisCalls = new AtomicInteger();

	private final String key = "hot-" + UUID.randomUUID();

	@Test
	void refusesAFloodFromOneKeyWithOneRedisCallPerRetryPeriod() {
		FixedWindowRateLimiter limiter = limiter();
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS).allowed()).isTrue();
		}
		RateLimitDecision first = limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS);
		assertThat(first.allowed()).isFalse();
		assertThat(first.retryAfter()).isEqualTo(Duration.ofSeconds(10));
		assertThat(this.redisCalls).hasValue(6);
		for (int i = 0; i < 10_000; i++) {
			assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS).allowed()).isFalse();
		}
		assertThat(this.redisCalls).hasValue(6);
		assertThat(this.cache.hits()).isEqualTo(10_000);

		this.clock.advance(Duration.ofSeconds(3));
		RateLimitDecision cached = limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS);
		assertThat(cached.retryAfter()).isEqualTo(Duration.ofSeconds(7));
		assertThat(cached.resetAfter()).isEqualTo(Duration.ofSeconds(7));
		assertThat(cached.remaining()).isZero();

		this.clock.advance(Duration.ofSeconds(7).minusNanos(1_000));
		assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS).retryAfter()).isEqualTo(Duration.ofNanos(1_000));
		assertThat(this.redisCalls).hasValue(6);
		// never refused longer than Redis would: at the retry time the call goes to Redis and is granted
		this.clock.advance(Duration.ofNanos(1_000));
		assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS).allowed()).isTrue();
		assertThat(this.redisCalls).hasValue(7);
	}

	@Test
	void asksRedisForFewerPermitsThanTheRefusedCallWanted() {
		FixedWindowRateLimiter limiter = limiter();
		limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS, 3);
		assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS, 3).allowed()).isFalse();
		assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS, 4).allowed()).isFalse();
		assertThat(this.redisCalls).hasValue(2);
		// two permits are left: a call for one may be granted, so only Redis can say
		assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS, 1).allowed()).isTrue();
		assertThat(this.redisCalls).hasValue(3);
	}

	@Test
	void remembersASeveralLimitRefusalUntilTheEarliestViolatedLimitCouldGrant() {
		FixedWindowRateLimiter limiter = limiter();
		List<RateLimit> limits = List.of(RateLimit.of(2, Duration.ofSeconds(1)), RateLimit.of(3, Duration.ofMinutes(1)));
		limiter.tryAcquire(this.key, limits, 1);
		limiter.tryAcquire(this.key, limits, 1);
		this.clock.advance(Duration.ofSeconds(1));
		limiter.tryAcquire(this.key, limits, 1);
		limiter.tryAcquire(this.key, limits, 1);
		assertThat(this.redisCalls).hasValue(4);
		// the second refused call (the minute's) comes from the cache
		List<RateLimitDecision> cached = limiter.tryAcquire(this.key, limits, 1);
		assertThat(this.redisCalls).hasValue(4);
		assertThat(cached.get(1).allowed()).isFalse();
		assertThat(cached.get(1).retryAfter()).isEqualTo(Duration.ofSeconds(59));
	}

	@Test
	void forgetsAKeysRefusalWhenTheKeyIsReset() {
		FixedWindowRateLimiter limiter = limiter();
		limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS, 5);
		assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS).allowed()).isFalse();
		assertThat(this.cache.size()).isEqualTo(1);
		limiter.reset(this.key, List.of(FIVE_PER_TEN_SECONDS));
		assertThat(this.cache.size()).isZero();
		assertThat(limiter.tryAcquire(this.key, FIVE_PER_TEN_SECONDS).allowed()).isTrue();
	}

	@Test
	void keepsNoMoreThanItsMaximumOfRefusals() {
		LocalDenialCache small = new LocalDenialCache(100, () -> nanos(this.clock.instant()));
		List<RateLimitDecision> refused = List.of(
				RateLimitDecision.rejected(1, 0, Duration.ofMinutes(1), Duration.ofMinutes(1)));
		for (int i = 0; i < 100_000; i++) {
			small.remember("flood-" + i, 1, small.now(), refused);
		}
		assertThat(small.size()).isEqualTo(100);
		// once they have expired, room is made for new ones
		this.clock.advance(Duration.ofMinutes(1));
		small.remember("late", 1, small.now(), refused);
		assertThat(small.size()).isEqualTo(1);
		assertThat(small.lookup("late", 1)).isNotNull();
	}

	private FixedWindowRateLimiter limiter() {
		RedisScriptRunner redis = RedisScriptRunner.of(RedisTestServer.shared().template());
		RedisScriptRunner counted = (script, keys, args) -> {
			this.redisCalls.incrementAndGet();
			return redis.run(script, keys, args);
		};
		return new FixedWindowRateLimiter(RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, counted)
			.keyPrefix("denials")
			.clock(this.clock)
			.denialCache(this.cache)
			.build());
	}

	private static long nanos(Instant instant) {
		return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
	}

}

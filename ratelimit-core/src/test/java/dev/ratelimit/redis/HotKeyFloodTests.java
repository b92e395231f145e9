package dev.ratelimit.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads flooding one key of one instance, window after window, with a clock the test moves: each
 * window grants exactly the limit, and after the first (when nothing is known of the key, every thread's
 * first call goes to Redis) costs at most one Redis call that comes back refused, however many threads
 * want the key: once Redis has told that few permits are left, no more calls are in flight than there are
 * permits, plus the one that learns of the refusal.
 */
class HotKeyFloodTests {

	private static final RateLimit TEN_PER_SECOND = RateLimit.of(10, Duration.ofSeconds(1));

	private final MutableClock clock = MutableClock.at("2026-06-06T06:06:06Z");

	private final LocalDenialCache cache = new LocalDenialCache(100, () -> nanos(this.clock.instant()));

	private final AtomicInteger redisCalls = new AtomicInteger();

	private final AtomicInteger refusedByRedis = new AtomicInteger();

	@ParameterizedTest
	@ValueSource(ints = { 8, 64 })
	void eachWindowGrantsTheLimitWithAtMostOneRefusedRedisCall(int threads) throws Exception {
		RedisRateLimiter limiter = countedLimiter(this.cache);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int window = 0; window < 5; window++) {
				this.redisCalls.set(0);
				this.refusedByRedis.set(0);
				AtomicInteger granted = new AtomicInteger();
				AtomicInteger decided = new AtomicInteger();
				CountDownLatch start = new CountDownLatch(1);
				List<Future<?>> flood = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					flood.add(pool.submit(() -> {
						start.await();
						for (int i = 0; i < 200; i++) {
							if (limiter.tryAcquire("hot", TEN_PER_SECOND).allowed()) {
								granted.incrementAndGet();
							}
							decided.incrementAndGet();
						}
						return null;
					}));
				}
				start.countDown();
				for (Future<?> future : flood) {
					future.get(30, TimeUnit.SECONDS);
				}
				assertThat(decided).hasValue(200 * threads);
				assertThat(granted).as("granted in window %d", window).hasValue(10);
				if (window == 0) {
					// nothing is known of the key yet: every thread's first call goes to Redis
					assertThat(this.refusedByRedis.get()).isLessThanOrEqualTo(threads);
				}
				else {
					assertThat(this.refusedByRedis).as("Redis calls refused in window %d", window).hasValueLessThanOrEqualTo(1);
					assertThat(this.redisCalls).as("Redis calls in window %d", window).hasValueLessThanOrEqualTo(11);
				}
				this.clock.advance(Duration.ofSeconds(1));
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * A call that found no refusal in memory, and whose turn is counted only after another call came back
	 * refused, reads that refusal from memory: were it sent, it would be a second refused Redis call. The
	 * cache's clock, read when the turn is counted, lands the other call at that very moment.
	 */
	@Test
	void aRefusalThatCameBackBeforeACallsTurnIsReadFromMemory() throws Exception {
		AtomicReference<Runnable> atNextTick = new AtomicReference<>();
		LocalDenialCache hooked = new LocalDenialCache(100, () -> {
			Runnable landing = atNextTick.getAndSet(null);
			if (landing != null) {
				landing.run();
			}
			return nanos(this.clock.instant());
		});
		RedisRateLimiter limiter = countedLimiter(hooked);
		RateLimit twoPerTenSeconds = RateLimit.of(2, Duration.ofSeconds(10));
		for (String key : List.of("sync", "async")) {
			this.refusedByRedis.set(0);
			assertThat(limiter.tryAcquire(key, twoPerTenSeconds).allowed()).isTrue();
			assertThat(limiter.tryAcquire(key, twoPerTenSeconds).allowed()).isTrue();
			long hits = hooked.hits();
			atNextTick.set(() -> assertThat(limiter.tryAcquire(key, twoPerTenSeconds).allowed()).isFalse());
			RateLimitDecision decision = key.equals("sync") ? limiter.tryAcquire(key, twoPerTenSeconds)
					: limiter.tryAcquireAsync(key, twoPerTenSeconds).get(10, TimeUnit.SECONDS);
			assertThat(atNextTick.get()).isNull();
			assertThat(decision.allowed()).isFalse();
			assertThat(this.refusedByRedis).as("Redis calls refused for %s", key).hasValue(1);
			assertThat(hooked.hits()).isEqualTo(hits + 1);
		}
	}

	private RedisRateLimiter countedLimiter(LocalDenialCache cache) {
		RedisScriptRunner redis = RedisScriptRunner.of(RedisTestServer.shared().template());
		RedisScriptRunner counted = (script, keys, args) -> {
			this.redisCalls.incrementAndGet();
			List<?> reply = redis.run(script, keys, args);
			if (((Number) reply.get(0)).longValue() == 0) {
				this.refusedByRedis.incrementAndGet();
			}
			return reply;
		};
		return RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, counted)
			.keyPrefix("hot-" + UUID.randomUUID().toString().substring(0, 8))
			.clock(this.clock)
			.denialCache(cache)
			.build();
	}

	private static long nanos(Instant instant) {
		return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
	}

}

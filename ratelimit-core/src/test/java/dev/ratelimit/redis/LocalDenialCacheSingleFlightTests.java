package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a remembered refusal runs out while many threads want the same key, one of them asks Redis and the
 * others wait for its answer: one Redis call per key per retry period, however many miss at once.
 */
class LocalDenialCacheSingleFlightTests {

	private static final int THREADS = 32;

	private final AtomicLong cacheNanos = new AtomicLong();

	private final LocalDenialCache cache = new LocalDenialCache(100, this.cacheNanos::get);

	private final AtomicInteger redisCalls = new AtomicInteger();

	private final AtomicBoolean armed = new AtomicBoolean();

	private final CountDownLatch secondCall = new CountDownLatch(1);

	@Test
	void asksRedisOnceWhenARefusalRunsOutUnderAFlood() throws Exception {
		RedisScriptRunner redis = RedisScriptRunner.of(RedisTestServer.shared().template());
		RedisScriptRunner counted = (script, keys, args) -> {
			if (this.redisCalls.incrementAndGet() > 1) {
				this.secondCall.countDown();
			}
			else if (this.armed.get()) {
				// the first call after the refusal ran out gives the others time to miss the cache as well
				try {
					this.secondCall.await(300, TimeUnit.MILLISECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return redis.run(script, keys, args);
		};
		// Redis's clock stands still: the key stays refused there, while the cache's clock runs past the refusal
		RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, counted)
			.keyPrefix("single-flight-" + UUID.randomUUID().toString().substring(0, 8))
			.clock(MutableClock.at("2026-05-05T05:05:05Z"))
			.denialCache(this.cache)
			.build();
		RateLimit limit = RateLimit.of(1, Duration.ofMinutes(1));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isFalse();
		this.cacheNanos.addAndGet(Duration.ofSeconds(61).toNanos());
		this.redisCalls.set(0);
		this.armed.set(true);

		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<RateLimitDecision>> decisions = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				decisions.add(threads.submit(() -> {
					start.await();
					return limiter.tryAcquire("hot", limit);
				}));
			}
			start.countDown();
			for (Future<RateLimitDecision> decision : decisions) {
				assertThat(decision.get(10, TimeUnit.SECONDS).allowed()).isFalse();
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(this.redisCalls).hasValue(1);
		assertThat(this.cache.hits()).isGreaterThanOrEqualTo(THREADS - 1);
	}

}

package dev.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;

import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances (two limiter stacks as the starter builds them: a Redis limiter with its denial cache, under a
 * prefetching one) on one Redis, one hot key, many threads started together, demand three times the limit in one
 * long window: never more than the limit across both, at least the limit less a batch per instance, a Redis call
 * for every fifth of a batch at most, headers never more generous than the budget, and what an instance holds given
 * back when it closes.
 */
class PrefetchingRateLimiterConcurrencyTests {

	private static final int THREADS = 32;

	private final String prefix = "prefetch-two-" + UUID.randomUUID().toString().substring(0, 8);

	private final RateLimit limit = RateLimit.of(1000, Duration.ofHours(1));

	/** An instance: its Redis calls counted. */
	private final class Instance implements AutoCloseable {

		final LongAdder redisCalls = new LongAdder();

		final PrefetchingRateLimiter limiter;

		Instance(long prefetch) {
			RedisScriptRunner template = RedisScriptRunner.of(RedisTestServer.shared().template());
			RedisScriptRunner counted = (script, keys, args) -> {
				this.redisCalls.increment();
				return template.run(script, keys, args);
			};
			RedisRateLimiter redis = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, counted)
				.keyPrefix(PrefetchingRateLimiterConcurrencyTests.this.prefix)
				.denialCache(new LocalDenialCache(10_000))
				.build();
			// keys never go quiet within the test: what is held comes back at close
			this.limiter = PrefetchingRateLimiter.builder(redis, prefetch).quietAfter(Duration.ofDays(1)).build();
		}

		@Override
		public void close() {
			this.limiter.close();
		}

	}

	@Test
	void twoInstancesNeverAdmitMoreThanTheLimitNorFewerThanItLessABatchEach() throws Exception {
		long prefetch = 10;
		Instance a = new Instance(prefetch);
		Instance b = new Instance(prefetch);
		int demand = 3 * (int) this.limit.limit();
		AtomicInteger admitted = new AtomicInteger();
		AtomicInteger asked = new AtomicInteger();
		java.util.Queue<Long> announced = new java.util.concurrent.ConcurrentLinkedQueue<>();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				PrefetchingRateLimiter limiter = ((t % 2) == 0) ? a.limiter : b.limiter;
				boolean async = (t % 4) < 2;
				done.add(threads.submit(() -> {
					start.await();
					while (asked.incrementAndGet() <= demand) {
						RateLimitDecision decision = async ? limiter.tryAcquireAsync("hot", this.limit).join()
								: limiter.tryAcquire("hot", this.limit);
						if (decision.allowed()) {
							admitted.incrementAndGet();
							announced.add(decision.remaining());
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		long calls = a.redisCalls.sum() + b.redisCalls.sum();
		System.out.printf("two instances, prefetch %d: admitted %d of %d asked (limit %d), %d Redis calls (%d + %d), "
				+ "%.4f per admitted request%n", prefetch, admitted.get(), demand, this.limit.limit(), calls,
				a.redisCalls.sum(), b.redisCalls.sum(), (double) calls / admitted.get());
		assertThat(admitted.get()).isLessThanOrEqualTo((int) this.limit.limit())
			.isGreaterThanOrEqualTo((int) (this.limit.limit() - 2 * prefetch));
		assertThat((double) calls / admitted.get()).as("Redis calls per admitted request").isLessThanOrEqualTo(2.0 / prefetch);
		// truthful headers: no more than limit - x requests were told that x or more permits remained
		List<Long> told = announced.stream().sorted(java.util.Comparator.reverseOrder()).toList();
		for (int i = 0; i < told.size(); i++) {
			assertThat(told.get(i)).as("the %d-th most generous remaining announced", i + 1)
				.isLessThanOrEqualTo(this.limit.limit() - (i + 1));
		}
		a.close();
		b.close();
		long left = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, RedisTestServer.shared().template())
			.keyPrefix(this.prefix)
			.build()
			.inspect("hot", List.of(this.limit))
			.get(0)
			.remaining();
		assertThat(left).as("every permit taken in Redis was admitted, or given back").isEqualTo(this.limit.limit() - admitted.get());
	}

	@Test
	void anInstanceThatClosesGivesBackWhatItHeldForTheOtherToAdmit() {
		Instance a = new Instance(5);
		Instance b = new Instance(5);
		RateLimit small = RateLimit.of(20, Duration.ofHours(1));
		assertThat(a.limiter.tryAcquire("hot", small).allowed()).isTrue();
		assertThat(a.limiter.held("hot", List.of(small))).isEqualTo(4);
		for (int i = 0; i < 15; i++) {
			assertThat(b.limiter.tryAcquire("hot", small).allowed()).as("B's request %d", i + 1).isTrue();
		}
		a.close();
		int admitted = 0;
		for (int i = 0; i < 10; i++) {
			if (b.limiter.tryAcquire("hot", small).allowed()) {
				admitted++;
			}
		}
		assertThat(admitted).as("the 4 permits A held").isEqualTo(4);
		b.close();
	}

}

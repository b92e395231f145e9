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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.RateLimiters;
import dev.ratelimit.testsupport.ClosedPort;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Slots of work in flight ({@code RateLimiter.tryAcquireSlot}) on a real Redis: never more held than the limit
 * across instances, given back on close, back by themselves when a crashed instance's leases end, renewed,
 * decided with rate limits all or nothing, and held in memory by the fallback while Redis is down.
 */
class ConcurrencySlotTests {

	private static final LettuceConnectionFactory factoryA = RedisTestServer.shared().newConnectionFactory();

	private static final LettuceConnectionFactory factoryB = RedisTestServer.shared().newConnectionFactory();

	// two instances: each its own connection and runner
	private static final LettuceScriptRunner runnerA = started(new LettuceScriptRunner(factoryA, Duration.ofSeconds(10)));

	private static final LettuceScriptRunner runnerB = started(new LettuceScriptRunner(factoryB, Duration.ofSeconds(10)));

	private final String prefix = "slots-" + UUID.randomUUID().toString().substring(0, 8);

	@AfterAll
	static void close() {
		runnerA.close();
		runnerB.close();
		factoryA.destroy();
		factoryB.destroy();
	}

	@Test
	void aRenewalOnItsWayWhenItsSlotIsGivenBackDoesNotKeepIt() {
		RedisRateLimiter redis = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runnerA).keyPrefix(this.prefix).build();
		RateLimitSlot taken = redis.tryAcquireSlot("renewed", 1, Duration.ofMinutes(1));
		assertThat(taken.acquired()).isTrue();
		// the request ends while its renewal is on its way to Redis: the release arrives first, the renewal after
		RateLimiter releasedWhileRenewing = new RateLimiter() {

			@Override
			public List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits) {
				return redis.tryAcquire(key, limits, permits);
			}

			@Override
			public Algorithm algorithm() {
				return redis.algorithm();
			}

			@Override
			public java.util.concurrent.CompletableFuture<Boolean> renewSlotAsync(RateLimitSlot slot) {
				slot.releaseAsync().join();
				return redis.renewSlotAsync(slot);
			}

			@Override
			public java.util.concurrent.CompletableFuture<Void> releaseSlotAsync(RateLimitSlot slot) {
				return redis.releaseSlotAsync(slot);
			}

		};
		RateLimitSlot slot = RateLimitSlot.held(releasedWhileRenewing, "renewed", taken.concurrency(),
				java.util.Objects.requireNonNull(taken.id()), taken.decision());
		slot.renewAsync().join();
		// nothing holds the key's one slot: the next request gets it
		try (RateLimitSlot next = redis.tryAcquireSlot("renewed", 1, Duration.ofMinutes(1))) {
			assertThat(next.acquired()).isTrue();
		}
	}

	@Test
	void fiftyThreadsOnTwoInstancesNeverHoldMoreThanTheLimit() throws Exception {
		RedisRateLimiter a = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runnerA).keyPrefix(this.prefix).build();
		RedisRateLimiter b = RedisRateLimiter.builder(Algorithm.GCRA, runnerB).keyPrefix(this.prefix).build();
		int threads = 50;
		int rounds = 20;
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		AtomicInteger granted = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		CountDownLatch full = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				RedisRateLimiter limiter = (t % 2 == 0) ? a : b;
				done.add(pool.submit(() -> {
					start.await();
					for (int round = 0; round < rounds; round++) {
						try (RateLimitSlot slot = limiter.tryAcquireSlot("tenant", 5, Duration.ofMinutes(1))) {
							if (!slot.acquired()) {
								refused.incrementAndGet();
								assertThat(slot.decision().retryAfter()).isPositive()
									.isLessThanOrEqualTo(Duration.ofSeconds(1));
								continue;
							}
							granted.incrementAndGet();
							int now = inFlight.incrementAndGet();
							most.accumulateAndGet(now, Math::max);
							if (now == 5) {
								full.countDown();
							}
							// the work lasts until the limit is reached once: the first holders pile up to it whatever
							// the machine's speed (slots are granted while fewer than 5 are held, so 5 come)
							assertThat(full.await(1, TimeUnit.MINUTES)).isTrue();
							inFlight.decrementAndGet();
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : done) {
				future.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(granted.get() + refused.get()).isEqualTo(threads * rounds);
		assertThat(most.get()).isEqualTo(5);
		assertThat(granted.get()).isGreaterThanOrEqualTo(5);
		// every slot was given back
		assertThat(a.tryAcquireSlot("tenant", 5, Duration.ofMinutes(1)).decision().remaining()).isEqualTo(4);
	}

	@Test
	void theSlotsOfACrashedInstanceComeBackWhenTheirLeasesEnd() {
		MutableClock clock = MutableClock.at("2026-12-06T10:00:00Z");
		RedisRateLimiter crashed = RedisRateLimiter.builder(Algorithm.TOKEN_BUCKET, runnerA)
			.keyPrefix(this.prefix)
			.clock(clock)
			.build();
		RedisRateLimiter survivor = RedisRateLimiter.builder(Algorithm.TOKEN_BUCKET, runnerB)
			.keyPrefix(this.prefix)
			.clock(clock)
			.build();
		Duration lease = Duration.ofSeconds(30);
		for (int i = 0; i < 3; i++) {
			// taken and never closed: the instance dies with them
			assertThat(crashed.tryAcquireSlot("export", 3, lease).acquired()).isTrue();
		}
		RateLimitSlot refused = survivor.tryAcquireSlot("export", 3, lease);
		assertThat(refused.acquired()).isFalse();
		assertThat(refused.held()).isFalse();
		assertThat(refused.decision().remaining()).isZero();
		clock.advance(Duration.ofSeconds(29));
		assertThat(survivor.tryAcquireSlot("export", 3, lease).acquired()).isFalse();
		clock.advance(Duration.ofSeconds(1));
		List<RateLimitSlot> back = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RateLimitSlot slot = survivor.tryAcquireSlot("export", 3, lease);
			assertThat(slot.acquired()).isTrue();
			back.add(slot);
		}
		assertThat(survivor.tryAcquireSlot("export", 3, lease).acquired()).isFalse();
		back.forEach(RateLimitSlot::close);
		assertThat(survivor.tryAcquireSlot("export", 3, lease).decision().remaining()).isEqualTo(2);
	}

	@Test
	void aRenewedSlotOutlivesItsFirstLeaseAndOneNotRenewedDoesNot() {
		MutableClock clock = MutableClock.at("2026-12-06T10:00:00Z");
		RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.SLIDING_WINDOW_LOG, runnerA)
			.keyPrefix(this.prefix)
			.clock(clock)
			.build();
		Duration lease = Duration.ofSeconds(10);
		RateLimitSlot slot = limiter.tryAcquireSlot("report", 1, lease);
		assertThat(slot.acquired()).isTrue();
		clock.advance(Duration.ofSeconds(8));
		assertThat(slot.renew()).isTrue();
		clock.advance(Duration.ofSeconds(8));
		// 16 s after it was taken, held by the renewal
		assertThat(limiter.tryAcquireSlot("report", 1, lease).acquired()).isFalse();
		clock.advance(Duration.ofSeconds(3));
		// not renewed: its lease ended, and the place is free
		RateLimitSlot next = limiter.tryAcquireSlot("report", 1, lease);
		assertThat(next.acquired()).isTrue();
		next.close();
		next.close();
		assertThat(next.released()).isTrue();
		// a slot given back is not taken back by a renewal
		assertThat(next.renew()).isFalse();
		assertThat(limiter.tryAcquireSlot("report", 1, lease).acquired()).isTrue();
	}

	@Test
	void holdersWhoseLeasesEndedWhileRedisDidNotAnswerTakeTheirSlotsBackPastTheLimit() {
		// the clock the scripts use: Redis paused 4 s, past the 2 s leases, while both holders kept working
		MutableClock clock = MutableClock.at("2026-12-06T10:00:00Z");
		RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runnerA)
			.keyPrefix(this.prefix)
			.clock(clock)
			.build();
		Duration lease = Duration.ofSeconds(2);
		RateLimitSlot first = limiter.tryAcquireSlot("chat", 2, lease);
		RateLimitSlot second = limiter.tryAcquireSlot("chat", 2, lease);
		assertThat(first.acquired()).isTrue();
		assertThat(second.acquired()).isTrue();
		clock.advance(Duration.ofSeconds(4));
		// a new call reaches Redis before the holders' renewals, and finds both places free
		RateLimitSlot early = limiter.tryAcquireSlot("chat", 2, lease);
		assertThat(early.acquired()).isTrue();
		// the renewals take both slots back (they tell that the lease had ended): 3 held against 2
		assertThat(first.renew()).isFalse();
		assertThat(second.renew()).isFalse();
		assertThat(limiter.tryAcquireSlot("chat", 2, lease).acquired()).isFalse();
		early.close();
		// 2 held: still no place
		assertThat(limiter.tryAcquireSlot("chat", 2, lease).acquired()).isFalse();
		clock.advance(Duration.ofSeconds(1));
		// renewed in time from now on
		assertThat(first.renew()).isTrue();
		assertThat(second.renew()).isTrue();
		assertThat(limiter.tryAcquireSlot("chat", 2, lease).acquired()).isFalse();
		first.close();
		RateLimitSlot next = limiter.tryAcquireSlot("chat", 2, lease);
		assertThat(next.acquired()).isTrue();
		assertThat(limiter.tryAcquireSlot("chat", 2, lease).acquired()).isFalse();
		second.close();
		next.close();
	}

	@Test
	void theLocalLimitersHoldersTakeTheirSlotsBackWhenTheirLeasesEnded() {
		AtomicLong nanos = new AtomicLong();
		LocalRateLimiter local = new LocalRateLimiter(100, nanos::get);
		Duration lease = Duration.ofSeconds(2);
		RateLimitSlot first = local.tryAcquireSlot("chat", 2, lease);
		RateLimitSlot second = local.tryAcquireSlot("chat", 2, lease);
		nanos.addAndGet(Duration.ofSeconds(4).toNanos());
		assertThat(local.tryAcquireSlot("chat", 2, lease).acquired()).isTrue();
		assertThat(first.renew()).isFalse();
		assertThat(second.renew()).isFalse();
		assertThat(local.tryAcquireSlot("chat", 2, lease).acquired()).isFalse();
		first.close();
		assertThat(local.tryAcquireSlot("chat", 2, lease).acquired()).isFalse();
		second.close();
		assertThat(local.tryAcquireSlot("chat", 2, lease).acquired()).isTrue();
	}

	@Test
	void aSlotAndRateLimitsAreDecidedTogetherAllOrNothing() {
		RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runnerA).keyPrefix(this.prefix).build();
		RateLimit perMinute = RateLimit.of(2, Duration.ofMinutes(1));
		Duration lease = Duration.ofMinutes(1);
		// the server learns the script first (NOSCRIPT, then EVAL), so that each decision below is one EVALSHA
		RateLimiters.tryAcquireTogether(List.of(new RateLimiters.Call(limiter, "warm-up", List.of(perMinute), 1),
				RateLimiters.Call.slot(limiter, "warm-up", 1, lease)));
		List<RateLimitSlot> held = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			RateLimiters.Call slotCall = RateLimiters.Call.slot(limiter, "user", 1, lease);
			List<RateLimiters.Call> calls = List.of(new RateLimiters.Call(limiter, "user", List.of(perMinute), 1), slotCall);
			assertThat(RateLimiters.canDecideTogether(List.of(limiter, limiter))).isTrue();
			long before = RedisTestServer.shared().scriptCalls();
			List<List<RateLimitDecision>> decided = RateLimiters.tryAcquireTogether(calls);
			assertThat(RedisTestServer.shared().scriptCalls() - before).isEqualTo(1);
			RateLimitSlot slot = (decided.size() == 2) ? slotCall.slot(decided.get(1)) : null;
			if (i == 0) {
				// granted: one permit and the one slot taken
				assertThat(decided).hasSize(2);
				assertThat(decided.get(0).get(0).remaining()).isEqualTo(1);
				assertThat(slot.held()).isTrue();
				held.add(slot);
			}
			else {
				// the slot is taken: refused, and the permit is not charged
				assertThat(decided).hasSize(2);
				assertThat(decided.get(0).get(0).allowed()).isTrue();
				assertThat(slot.acquired()).isFalse();
				assertThat(limiter.inspect("user", List.of(perMinute)).get(0).remaining()).isEqualTo(1);
			}
		}
		held.forEach(RateLimitSlot::close);
		// the permit spent: refused, and no slot taken
		limiter.tryAcquire("user", perMinute);
		RateLimiters.Call slotCall = RateLimiters.Call.slot(limiter, "user", 1, lease);
		List<List<RateLimitDecision>> decided = RateLimiters
			.tryAcquireTogether(List.of(new RateLimiters.Call(limiter, "user", List.of(perMinute), 1), slotCall));
		assertThat(decided).hasSize(1);
		assertThat(decided.get(0).get(0).allowed()).isFalse();
		assertThat(limiter.tryAcquireSlot("user", 1, lease).acquired()).isTrue();
	}

	@Test
	void theFallbackHoldsSlotsInMemoryWhileRedisIsDown() {
		LettuceConnectionFactory unreachable = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServerProcess.HOST, ClosedPort.reserve()));
		unreachable.afterPropertiesSet();
		LettuceScriptRunner down = new LettuceScriptRunner(unreachable, Duration.ofMillis(200));
		try {
			down.start();
			RedisRateLimiter withFallback = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, down)
				.fallback(new LocalRateLimiter(100))
				.circuitBreaker(new CircuitBreaker("slots", 1, Duration.ofMinutes(1)))
				.build();
			RateLimitSlot first = withFallback.tryAcquireSlot("k", 1, Duration.ofMinutes(1));
			assertThat(first.acquired()).isTrue();
			assertThat(first.held()).isTrue();
			RateLimitSlot second = withFallback.tryAcquireSlot("k", 1, Duration.ofMinutes(1));
			assertThat(second.acquired()).isFalse();
			assertThat(second.decision().retryAfter()).isLessThanOrEqualTo(Duration.ofSeconds(1));
			first.close();
			assertThat(withFallback.tryAcquireSlot("k", 1, Duration.ofMinutes(1)).acquired()).isTrue();
			RedisRateLimiter without = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, down).build();
			assertThatExceptionOfType(RateLimiterUnavailableException.class)
				.isThrownBy(() -> without.tryAcquireSlot("k", 1, Duration.ofMinutes(1)));
		}
		finally {
			down.close();
			unreachable.destroy();
		}
	}

	@Test
	void rejectsBadArgumentsNamingThem() {
		RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runnerA).keyPrefix(this.prefix).build();
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireSlot("k", 0, Duration.ofMinutes(1)))
			.withMessageContaining("limit (slots held at once) must be from 1");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireSlot("k", 1, Duration.ZERO))
			.withMessageContaining("lease must be from 1ms");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireSlot(null, 1, Duration.ofMinutes(1)))
			.withMessageContaining("key");
		assertThat(limiter.slotKey("tenant")).isEqualTo(this.prefix + ":concurrency:tenant");
	}

	private static LettuceScriptRunner started(LettuceScriptRunner runner) {
		runner.start();
		return runner;
	}

}

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

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitReservation;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Costs settled after the work ({@code RateLimiter.reserve}) on a real Redis, for every algorithm, on a clock the test
 * holds still: the estimate counts from the reservation on, the settlement charges the difference (past the limit)
 * or gives the excess back, once, and concurrent reservations on two instances never take more than the budget.
 */
class ReservationTests {

	private static final LettuceConnectionFactory factoryA = RedisTestServer.shared().newConnectionFactory();

	private static final LettuceConnectionFactory factoryB = RedisTestServer.shared().newConnectionFactory();

	private static final LettuceScriptRunner runnerA = started(new LettuceScriptRunner(factoryA, Duration.ofSeconds(10)));

	private static final LettuceScriptRunner runnerB = started(new LettuceScriptRunner(factoryB, Duration.ofSeconds(10)));

	private static final List<RateLimit> HUNDRED_AN_HOUR = List.of(RateLimit.of(100, Duration.ofHours(1)));

	private static final Duration LEASE = Duration.ofMinutes(5);

	private final String prefix = "reserve-" + UUID.randomUUID().toString().substring(0, 8);

	private final MutableClock clock = MutableClock.at("2026-12-06T12:00:00Z");

	@AfterAll
	static void close() {
		runnerA.close();
		runnerB.close();
		factoryA.destroy();
		factoryB.destroy();
	}

	private RedisRateLimiter limiter(Algorithm algorithm, LettuceScriptRunner runner) {
		return RedisRateLimiter.builder(algorithm, runner).keyPrefix(this.prefix).clock(this.clock).build();
	}

	private static long remaining(RateLimiter limiter, String key) {
		return limiter.inspect(key, HUNDRED_AN_HOUR).get(0).remaining();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void chargesTheDifferenceOrGivesTheExcessBackOnce(Algorithm algorithm) {
		RedisRateLimiter limiter = limiter(algorithm, runnerA);
		RateLimitReservation more = limiter.reserve("more", HUNDRED_AN_HOUR, 30, LEASE);
		assertThat(more.granted()).isTrue();
		assertThat(more.decisions().get(0).remaining()).isEqualTo(70);
		assertThat(more.settle(50)).isTrue();
		assertThat(remaining(limiter, "more")).isEqualTo(50);
		// once
		assertThat(more.settle(10)).isFalse();
		assertThat(more.cancel()).isFalse();
		assertThat(remaining(limiter, "more")).isEqualTo(50);

		RateLimitReservation less = limiter.reserve("less", HUNDRED_AN_HOUR, 30, LEASE);
		assertThat(less.settle(12)).isTrue();
		assertThat(remaining(limiter, "less")).isEqualTo(88);

		RateLimitReservation cancelled = limiter.reserve("cancelled", HUNDRED_AN_HOUR, 30, LEASE);
		assertThat(cancelled.cancel()).isTrue();
		assertThat(remaining(limiter, "cancelled")).isEqualTo(100);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void chargesAnActualCostPastTheLimitAndRefusesTheKeyUntilItRecovers(Algorithm algorithm) {
		RedisRateLimiter limiter = limiter(algorithm, runnerA);
		RateLimitReservation reservation = limiter.reserve("heavy", HUNDRED_AN_HOUR, 30, LEASE);
		assertThat(reservation.settle(150)).isTrue();
		assertThat(remaining(limiter, "heavy")).isZero();
		assertThat(limiter.tryAcquire("heavy", HUNDRED_AN_HOUR, 1).get(0).allowed()).isFalse();
		if (algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.GCRA) {
			// 50 permits of debt, then one: 51 of 100 an hour
			assertThat(limiter.tryAcquire("heavy", HUNDRED_AN_HOUR, 1).get(0).retryAfter())
				.isEqualTo(Duration.ofSeconds(51 * 36));
			this.clock.advance(Duration.ofSeconds(50 * 36));
			assertThat(limiter.tryAcquire("heavy", HUNDRED_AN_HOUR, 1).get(0).allowed()).isFalse();
			this.clock.advance(Duration.ofSeconds(36));
			assertThat(limiter.tryAcquire("heavy", HUNDRED_AN_HOUR, 1).get(0).allowed()).isTrue();
		}
		else {
			// a window's count past its limit: refused until the window (or the weight of the last) has passed
			this.clock.advance(Duration.ofHours(2).plusSeconds(1));
			assertThat(limiter.tryAcquire("heavy", HUNDRED_AN_HOUR, 1).get(0).allowed()).isTrue();
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void reservationsOnTwoInstancesNeverTakeMoreThanTheBudget(Algorithm algorithm) throws Exception {
		List<RedisRateLimiter> instances = List.of(limiter(algorithm, runnerA), limiter(algorithm, runnerB));
		int threads = 40;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Boolean>> granted = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				RedisRateLimiter limiter = instances.get(i % 2);
				granted.add(pool.submit(() -> {
					start.await();
					RateLimitReservation reservation = limiter.reserve("shared", HUNDRED_AN_HOUR, 10, LEASE);
					if (reservation.granted()) {
						// the work turned out to cost half the estimate
						reservation.settle(5);
					}
					return reservation.granted();
				}));
			}
			start.countDown();
			int grants = 0;
			for (Future<Boolean> each : granted) {
				grants += each.get(60, TimeUnit.SECONDS) ? 1 : 0;
			}
			// reservations count until settled: at most ten of 10 at once, and each gave 5 back when it settled, which
			// later ones may have taken
			assertThat(grants).isBetween(10, 20);
			assertThat(remaining(instances.get(0), "shared")).isEqualTo(100 - 5L * grants);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aTokenBucketsRefundPaysItsDebtFirst() {
		RedisRateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, runnerA);
		// 150 taken of 100: a debt of 50 tokens, 30 minutes at 100 an hour
		limiter.charge("indebted", HUNDRED_AN_HOUR, 150);
		assertThat(limiter.tryAcquire("indebted", HUNDRED_AN_HOUR, 1).get(0).retryAfter())
			.isEqualTo(Duration.ofSeconds(51 * 36));
		// 20 given back pay 20 of the debt: no token is free yet
		limiter.refund("indebted", HUNDRED_AN_HOUR, 20);
		assertThat(limiter.tryAcquire("indebted", HUNDRED_AN_HOUR, 1).get(0).retryAfter())
			.isEqualTo(Duration.ofSeconds(31 * 36));
		// 40 more pay the rest and give 10 tokens
		limiter.refund("indebted", HUNDRED_AN_HOUR, 40);
		assertThat(remaining(limiter, "indebted")).isEqualTo(10);
	}

	@Test
	void theLocalLimiterHoldsEachSlotUntilItIsGivenBackOrItsLeaseEnds() {
		java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
		LocalRateLimiter local = new LocalRateLimiter(100, nanos::get);
		dev.ratelimit.RateLimitSlot first = local.tryAcquireSlot("k", 2, Duration.ofSeconds(10));
		dev.ratelimit.RateLimitSlot second = local.tryAcquireSlot("k", 2, Duration.ofSeconds(10));
		assertThat(local.tryAcquireSlot("k", 2, Duration.ofSeconds(10)).acquired()).isFalse();
		nanos.addAndGet(Duration.ofSeconds(8).toNanos());
		assertThat(second.renew()).isTrue();
		nanos.addAndGet(Duration.ofSeconds(3).toNanos());
		// the first's lease ended, the second was renewed: one free, not two
		assertThat(local.tryAcquireSlot("k", 2, Duration.ofSeconds(10)).acquired()).isTrue();
		assertThat(local.tryAcquireSlot("k", 2, Duration.ofSeconds(10)).acquired()).isFalse();
		second.close();
		assertThat(local.tryAcquireSlot("k", 2, Duration.ofSeconds(10)).acquired()).isTrue();
		assertThat(first.renew()).isFalse();
	}

	@Test
	void aRefusedReservationHoldsNothingToSettle() {
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, runnerA);
		assertThat(limiter.reserve("late", HUNDRED_AN_HOUR, 30, LEASE).granted()).isTrue();
		assertThat(remaining(limiter, "late")).isEqualTo(70);
		RateLimitReservation refused = limiter.reserve("late", HUNDRED_AN_HOUR, 80, LEASE);
		assertThat(refused.granted()).isFalse();
		assertThat(refused.settled()).isTrue();
		assertThat(refused.settle(80)).isFalse();
		assertThat(remaining(limiter, "late")).isEqualTo(70);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.reserve("late", HUNDRED_AN_HOUR, 1, Duration.ZERO))
			.withMessageContaining("lease must be positive");
		RateLimitReservation settled = limiter.reserve("late", HUNDRED_AN_HOUR, 1, LEASE);
		assertThatIllegalArgumentException().isThrownBy(() -> settled.settle(-1)).withMessageContaining("actual");
	}

	@Test
	void theLocalLimiterSettlesReservationsToo() {
		LocalRateLimiter local = new LocalRateLimiter(100);
		RateLimitReservation reservation = local.reserve("k", HUNDRED_AN_HOUR, 30, LEASE);
		assertThat(reservation.settle(120)).isTrue();
		assertThat(local.tryAcquire("k", HUNDRED_AN_HOUR, 1).get(0).allowed()).isFalse();
		RateLimitReservation other = local.reserve("other", HUNDRED_AN_HOUR, 30, LEASE);
		assertThat(other.settle(10)).isTrue();
		assertThat(local.check("other", HUNDRED_AN_HOUR, 1).get(0).remaining()).isEqualTo(90);
	}

	private static LettuceScriptRunner started(LettuceScriptRunner runner) {
		runner.start();
		return runner;
	}

}

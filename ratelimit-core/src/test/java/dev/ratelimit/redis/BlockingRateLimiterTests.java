package dev.ratelimit.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.InvalidRateLimitException;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Blocking limiters on a real Redis, with a clock the test moves: a refused key stays refused for the
 * policy's time on every instance, repeat offenders longer, and blocks can be read, set and lifted.
 */
class BlockingRateLimiterTests {

	private static final RateLimit THREE_PER_SECOND = RateLimit.of(3, Duration.ofSeconds(1));

	private final MutableClock clock = MutableClock.at("2026-05-05T05:05:05Z");

	private final StringRedisTemplate redis = RedisTestServer.shared().template();

	private final AtomicInteger redisCalls = new AtomicInteger();

	private final String key = "abuser-" + UUID.randomUUID();

	@Test
	void aRefusedKeyStaysRefusedForTheBlockThenIsServedAgain() {
		BlockingRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, null).blocking(BlockPolicy.of(Duration.ofSeconds(10)));
		take(limiter, 3);
		RateLimitDecision refused = limiter.tryAcquire(this.key, THREE_PER_SECOND);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(10));
		assertThat(refused.resetAfter()).isEqualTo(Duration.ofSeconds(10));

		// the window is over, the block is not: refused, charged nothing, counting the block down
		this.clock.advance(Duration.ofSeconds(4));
		RateLimitDecision blocked = limiter.tryAcquire(this.key, THREE_PER_SECOND);
		assertThat(blocked.allowed()).isFalse();
		assertThat(blocked.remaining()).isZero();
		assertThat(blocked.retryAfter()).isEqualTo(Duration.ofSeconds(6));
		assertThat(limiter.blockedFor(this.key)).isEqualTo(Duration.ofSeconds(6));

		this.clock.advance(Duration.ofSeconds(6).minusNanos(1_000));
		assertThat(limiter.tryAcquire(this.key, THREE_PER_SECOND).retryAfter()).isEqualTo(Duration.ofNanos(1_000));
		this.clock.advance(Duration.ofNanos(1_000));
		RateLimitDecision served = limiter.tryAcquire(this.key, THREE_PER_SECOND);
		assertThat(served.allowed()).isTrue();
		assertThat(served.remaining()).isEqualTo(2);
		assertThat(limiter.blockedFor(this.key)).isZero();
	}

	@Test
	void aRepeatOffenderIsBlockedLongerEachTimeUpToTheMaxAndAFirstOffenderAgainAfterAQuietSpell() {
		BlockingRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, null)
			.blocking(new BlockPolicy(Duration.ofSeconds(10), 2, Duration.ofSeconds(30)));
		// each offend() is refused 1 s after the previous block ended: a repeat offence
		assertThat(offend(limiter)).isEqualTo(Duration.ofSeconds(10));
		assertThat(offend(limiter)).isEqualTo(Duration.ofSeconds(20));
		assertThat(offend(limiter)).isEqualTo(Duration.ofSeconds(30));
		assertThat(offend(limiter)).isEqualTo(Duration.ofSeconds(30));
		// refused more than blockFor after the end of the last block: a first offence again
		this.clock.advance(Duration.ofSeconds(9).plusMillis(1));
		assertThat(offend(limiter)).isEqualTo(Duration.ofSeconds(10));
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void everyAlgorithmBlocksUnderOneOrSeveralLimits(Algorithm algorithm) {
		List<RateLimit> limits = List.of(RateLimit.of(2, Duration.ofSeconds(1)), RateLimit.of(5, Duration.ofHours(1)));
		for (List<RateLimit> under : List.of(limits.subList(0, 1), limits)) {
			String id = this.key + ":" + under.size();
			BlockingRateLimiter limiter = limiter(algorithm, null).blocking(BlockPolicy.of(Duration.ofMinutes(5)));
			assertThat(limiter.tryAcquire(id, under, 2)).allMatch(RateLimitDecision::allowed);
			List<RateLimitDecision> refused = limiter.tryAcquire(id, under, 1);
			assertThat(refused).noneMatch(RateLimitDecision::allowed)
				.allMatch((decision) -> decision.retryAfter().equals(Duration.ofMinutes(5)));
			this.clock.advance(Duration.ofSeconds(2));
			assertThat(limiter.tryAcquire(id, under, 1)).noneMatch(RateLimitDecision::allowed)
				.allMatch((decision) -> decision.retryAfter().equals(Duration.ofMinutes(5).minusSeconds(2)));
			// nothing was charged while blocked: 3 of the hour's 5 are left once the block ends
			this.clock.advance(Duration.ofMinutes(5));
			List<RateLimitDecision> served = limiter.tryAcquire(id, under, 1);
			assertThat(served).allMatch(RateLimitDecision::allowed);
			assertThat(served.get(served.size() - 1).remaining()).isEqualTo((under.size() == 1) ? 1 : 2);
		}
	}

	@Test
	void aRefusedCheckStartsABlockWhileInspectingOnlyReads() {
		BlockingRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, null).blocking(BlockPolicy.of(Duration.ofMinutes(1)));
		take(limiter, 3);
		assertThat(limiter.inspect(this.key, List.of(THREE_PER_SECOND)).get(0).allowed()).isFalse();
		assertThat(limiter.blockedFor(this.key)).isZero();
		// a check when none is left is a refusal: the block starts
		List<RateLimitDecision> checked = limiter.check(this.key, List.of(THREE_PER_SECOND), 1);
		assertThat(checked.get(0).allowed()).isFalse();
		assertThat(checked.get(0).retryAfter()).isEqualTo(Duration.ofMinutes(1));
		assertThat(limiter.blockedFor(this.key)).isEqualTo(Duration.ofMinutes(1));
		RateLimitDecision inspected = limiter.inspect(this.key, List.of(THREE_PER_SECOND)).get(0);
		assertThat(inspected.allowed()).isFalse();
		assertThat(inspected.retryAfter()).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void aCheckChargesNothing() {
		BlockingRateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, null).blocking(BlockPolicy.of(Duration.ofMinutes(1)));
		for (int i = 0; i < 10; i++) {
			assertThat(limiter.check(this.key, List.of(THREE_PER_SECOND), 3).get(0).allowed()).isTrue();
		}
		assertThat(limiter.tryAcquire(this.key, THREE_PER_SECOND, 3).allowed()).isTrue();
		assertThat(limiter.check(this.key, List.of(THREE_PER_SECOND), 1).get(0).allowed()).isFalse();
		assertThat(limiter.blockedFor(this.key)).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void blocksByHandAndUnblocks() {
		BlockingRateLimiter limiter = limiter(Algorithm.GCRA, null).blocking(BlockPolicy.of(Duration.ofSeconds(30)));
		limiter.block(this.key, Duration.ofMinutes(15));
		assertThat(limiter.blockedFor(this.key)).isEqualTo(Duration.ofMinutes(15));
		RateLimitDecision blocked = limiter.tryAcquire(this.key, THREE_PER_SECOND);
		assertThat(blocked.allowed()).isFalse();
		assertThat(blocked.retryAfter()).isEqualTo(Duration.ofMinutes(15));
		this.clock.advance(Duration.ofMinutes(5));
		assertThat(limiter.blockedFor(this.key)).isEqualTo(Duration.ofMinutes(10));

		assertThat(limiter.unblock(this.key)).isTrue();
		assertThat(limiter.unblock(this.key)).isFalse();
		assertThat(limiter.blockedFor(this.key)).isZero();
		assertThat(limiter.tryAcquire(this.key, THREE_PER_SECOND).allowed()).isTrue();
		// a refusal after an unblock is a first offence
		take(limiter, 2);
		assertThat(limiter.tryAcquire(this.key, THREE_PER_SECOND).retryAfter()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void blocksAreSharedByEveryInstanceAndEachAnswersABlockedKeyFromItsDenialCache() {
		LocalDenialCache cacheOfA = new LocalDenialCache(100, () -> nanos(this.clock.instant()));
		LocalDenialCache cacheOfB = new LocalDenialCache(100, () -> nanos(this.clock.instant()));
		BlockPolicy policy = BlockPolicy.of(Duration.ofMinutes(2));
		BlockingRateLimiter a = limiter(Algorithm.SLIDING_WINDOW_COUNTER, cacheOfA).blocking(policy);
		BlockingRateLimiter b = limiter(Algorithm.SLIDING_WINDOW_COUNTER, cacheOfB).blocking(policy);
		take(a, 3);
		assertThat(a.tryAcquire(this.key, THREE_PER_SECOND).allowed()).isFalse();
		this.clock.advance(Duration.ofSeconds(30));
		RateLimitDecision onB = b.tryAcquire(this.key, THREE_PER_SECOND);
		assertThat(onB.allowed()).isFalse();
		assertThat(onB.retryAfter()).isEqualTo(Duration.ofSeconds(90));
		int calls = this.redisCalls.get();
		for (int i = 0; i < 1_000; i++) {
			assertThat(a.tryAcquire(this.key, THREE_PER_SECOND).allowed()).isFalse();
			assertThat(b.tryAcquire(this.key, THREE_PER_SECOND).allowed()).isFalse();
		}
		assertThat(this.redisCalls).hasValue(calls);
		assertThat(cacheOfA.hits() + cacheOfB.hits()).isEqualTo(2_000);

		// lifting the block forgets this instance's memory of it at once
		a.unblock(this.key);
		assertThat(a.tryAcquire(this.key, THREE_PER_SECOND).allowed()).isTrue();
	}

	@Test
	void aFloodOfThreadsOnOneKeyIsGrantedExactlyTheLimitBeforeTheBlock() throws Exception {
		BlockingRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, null).blocking(BlockPolicy.of(Duration.ofMinutes(1)));
		RateLimit limit = RateLimit.of(25, Duration.ofSeconds(1));
		int threads = 32;
		CountDownLatch start = new CountDownLatch(1);
		AtomicInteger granted = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new java.util.ArrayList<>();
			for (int t = 0; t < threads; t++) {
				done.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < 10; i++) {
						if (limiter.tryAcquire(this.key, limit).allowed()) {
							granted.incrementAndGet();
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : done) {
				future.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(granted).hasValue(25);
		// the window is over; the block is not
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(limiter.tryAcquire(this.key, limit).allowed()).isFalse();
	}

	@Test
	void theBlockLivesNextToTheKeysStateOnOneClusterSlot() {
		BlockingRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, null).blocking(BlockPolicy.of(Duration.ofMinutes(1)));
		take(limiter, 3);
		limiter.tryAcquire(this.key, THREE_PER_SECOND);
		assertThat(this.redis.keys("blocks:fixed:{" + this.key + "}:*")).containsExactlyInAnyOrder(
				"blocks:fixed:{" + this.key + "}:1s", "blocks:fixed:{" + this.key + "}:block");
		assertThat(this.redis.getExpire("blocks:fixed:{" + this.key + "}:block", TimeUnit.MILLISECONDS))
			.isBetween(1L, Duration.ofMinutes(2).toMillis());
	}

	@Test
	void badPoliciesNameTheArgument() {
		assertThatExceptionOfType(InvalidRateLimitException.class)
			.isThrownBy(() -> new BlockPolicy(Duration.ofSeconds(10), 0.5, Duration.ofMinutes(1)))
			.withMessageContaining("multiplier must be a finite number of at least 1");
		assertThatExceptionOfType(InvalidRateLimitException.class)
			.isThrownBy(() -> new BlockPolicy(Duration.ofMinutes(10), 2, Duration.ofMinutes(1)))
			.withMessage("max must be at least blockFor (10m), but was 1m");
		assertThatExceptionOfType(InvalidRateLimitException.class).isThrownBy(() -> BlockPolicy.of(Duration.ZERO))
			.withMessage("blockFor must be from 1ms to 36500d, but was 0s");
		BlockingRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, null).blocking(BlockPolicy.of(Duration.ofMinutes(1)));
		assertThatExceptionOfType(InvalidRateLimitException.class)
			.isThrownBy(() -> limiter.block(this.key, Duration.ofSeconds(-1)))
			.withMessageStartingWith("duration must be from 1ms to 36500d");
	}

	/** Takes permits one by one, every one granted. */
	private void take(BlockingRateLimiter limiter, int permits) {
		for (int i = 0; i < permits; i++) {
			assertThat(limiter.tryAcquire(this.key, THREE_PER_SECOND).allowed()).isTrue();
		}
	}

	/** Spends a fresh window and is refused once more: returns the block this starts. */
	private Duration offend(BlockingRateLimiter limiter) {
		assertThat(limiter.blockedFor(this.key)).isZero();
		this.clock.advance(Duration.ofSeconds(1));
		take(limiter, 3);
		Duration block = limiter.tryAcquire(this.key, THREE_PER_SECOND).retryAfter();
		assertThat(limiter.blockedFor(this.key)).isEqualTo(block);
		this.clock.advance(block);
		return block;
	}

	private RedisRateLimiter limiter(Algorithm algorithm, LocalDenialCache cache) {
		RedisScriptRunner runner = RedisScriptRunner.of(this.redis);
		RedisScriptRunner counted = (script, keys, args) -> {
			this.redisCalls.incrementAndGet();
			return runner.run(script, keys, args);
		};
		return RedisRateLimiter.builder(algorithm, counted).keyPrefix("blocks").clock(this.clock).denialCache(cache).build();
	}

	private static long nanos(Instant instant) {
		return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
	}

}

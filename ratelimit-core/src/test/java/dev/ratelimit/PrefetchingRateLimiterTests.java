package dev.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;

import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A hot key's permits taken from Redis in batches and spent here, against a real Redis, on an explicit clock shared by
 * the scripts and the batches: never more than the limit, permits that never outlive their window (nor, for the token
 * bucket, make a burst above its capacity), given back when the key goes quiet and at close, decided one by one near
 * the end of the budget, one fetch in flight per key.
 */
class PrefetchingRateLimiterTests {

	private final String prefix = "prefetch-" + UUID.randomUUID().toString().substring(0, 8);

	private final MutableClock clock = MutableClock.at("2026-05-06T07:08:09Z");

	private final LongSupplier nanoTime = () -> {
		Instant now = this.clock.instant();
		return now.getEpochSecond() * 1_000_000_000L + now.getNano();
	};

	/** Every script call, and the permits each asked for (its second argument). */
	private final List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();

	private RedisRateLimiter redis(Algorithm algorithm, RedisScriptRunner runner) {
		return RedisRateLimiter.builder(algorithm, runner).keyPrefix(this.prefix).clock(this.clock).build();
	}

	/** What Redis holds of a key now, read without being counted. */
	private long inRedis(Algorithm algorithm, String key, RateLimit limit) {
		return redis(algorithm, RedisScriptRunner.of(RedisTestServer.shared().template())).inspect(key, List.of(limit))
			.get(0)
			.remaining();
	}

	private RedisScriptRunner counting() {
		RedisScriptRunner template = RedisScriptRunner.of(RedisTestServer.shared().template());
		return (script, keys, args) -> {
			this.calls.add(args.get(1));
			return template.run(script, keys, args);
		};
	}

	private PrefetchingRateLimiter prefetching(RateLimiter delegate, long prefetch) {
		return PrefetchingRateLimiter.builder(delegate, prefetch).nanoTime(this.nanoTime).build();
	}

	/** A limiter whose keys never go quiet within a test: batches end by their windows only. */
	private PrefetchingRateLimiter neverQuiet(RateLimiter delegate, long prefetch) {
		return PrefetchingRateLimiter.builder(delegate, prefetch)
			.nanoTime(this.nanoTime)
			.quietAfter(Duration.ofDays(1))
			.build();
	}

	@Test
	void spendsABatchHereAndTellsTheBudgetRedisLeftLessWhatWasSpent() {
		RedisRateLimiter redis = redis(Algorithm.FIXED_WINDOW, counting());
		PrefetchingRateLimiter limiter = prefetching(redis, 4);
		RateLimit limit = RateLimit.of(10, Duration.ofHours(1));
		List<Long> remaining = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			RateLimitDecision decision = limiter.tryAcquire("hot", limit);
			assertThat(decision.allowed()).isTrue();
			remaining.add(decision.remaining());
		}
		assertThat(this.calls).as("one batch of 4").containsExactly("4");
		assertThat(remaining).as("6 left in Redis, then one less per permit spent here").containsExactly(6L, 5L, 4L, 3L);
		assertThat(inRedis(Algorithm.FIXED_WINDOW, "hot", limit)).isEqualTo(6);
		assertThat(limiter.tryAcquire("hot", limit).remaining()).as("the next batch").isEqualTo(2);
		assertThat(this.calls).containsExactly("4", "4");
	}

	@Test
	void admitsExactlyTheLimitDecidingOneByOneNearItsEnd() {
		RedisRateLimiter redis = redis(Algorithm.FIXED_WINDOW, counting());
		PrefetchingRateLimiter limiter = prefetching(redis, 4);
		RateLimit limit = RateLimit.of(10, Duration.ofHours(1));
		int admitted = 0;
		for (int i = 0; i < 15; i++) {
			if (limiter.tryAcquire("hot", limit).allowed()) {
				admitted++;
			}
		}
		assertThat(admitted).isEqualTo(10);
		// batches of 4, 4, a batch refused with 2 left, then the calls' own permits
		assertThat(this.calls.subList(0, 5)).containsExactly("4", "4", "4", "1", "1");
		assertThat(this.calls.subList(5, this.calls.size())).as("one by one until the window ends").containsOnly("1");
		assertThat(limiter.held("hot", List.of(limit))).isZero();
	}

	@Test
	void neverSpendsAPermitOnceItsWindowEnded() {
		RedisRateLimiter redis = redis(Algorithm.FIXED_WINDOW, counting());
		PrefetchingRateLimiter limiter = neverQuiet(redis, 4);
		RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(limiter.held("hot", List.of(limit))).isEqualTo(3);
		// the window opened by the first permit has ended
		this.clock.advance(Duration.ofSeconds(61));
		assertThat(limiter.tryAcquire("hot", limit).remaining()).as("a batch of the new window").isEqualTo(6);
		assertThat(this.calls).containsExactly("4", "4");
		assertThat(inRedis(Algorithm.FIXED_WINDOW, "hot", limit))
			.as("nothing of the old window given to the new one")
			.isEqualTo(6);
	}

	@Test
	void slidingWindowCounterPermitsEndWithTheWindowTheyAreCountedIn() {
		RedisRateLimiter redis = redis(Algorithm.SLIDING_WINDOW_COUNTER, counting());
		PrefetchingRateLimiter limiter = neverQuiet(redis, 4);
		RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		this.clock.advance(Duration.ofSeconds(50));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).as("spent here within its window").containsExactly("4");
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).as("the next window takes a batch of its own").containsExactly("4", "4");
	}

	@Test
	void tokenBucketTokensAreNotSpentOnceTheBucketCouldHaveRefilledPastItsCapacity() {
		RedisRateLimiter redis = redis(Algorithm.TOKEN_BUCKET, counting());
		PrefetchingRateLimiter limiter = neverQuiet(redis, 4);
		// a token a second, up to 10
		RateLimit limit = RateLimit.of(10, Duration.ofSeconds(10));
		assertThat(redis.tryAcquire("hot", limit, 6).allowed()).isTrue();
		this.calls.clear();
		assertThat(limiter.tryAcquire("hot", limit).remaining()).as("the bucket emptied by the batch").isZero();
		// 3 held, 0 in Redis: the next may be spent until (10 - 0 - 1 - 3) s, the one after until 7 s, then 8 s
		this.clock.advance(Duration.ofMillis(5_900));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		this.clock.advance(Duration.ofMillis(1_000));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).as("two tokens spent here").containsExactly("4");
		// 8.5 s: 8 tokens back in Redis and 1 held would be 9 + the refill to come; the held token goes back
		this.clock.advance(Duration.ofMillis(1_600));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).as("the held token given back, a new batch taken").containsExactly("4", "1", "4");
	}

	@Test
	void givesBackWhatAQuietKeyHolds() {
		RedisRateLimiter redis = redis(Algorithm.FIXED_WINDOW, counting());
		PrefetchingRateLimiter limiter = prefetching(redis, 4);
		RateLimit limit = RateLimit.of(10, Duration.ofHours(1));
		limiter.tryAcquire("hot", limit);
		this.clock.advance(Duration.ofMillis(500));
		limiter.sweep();
		assertThat(limiter.held("hot", List.of(limit))).as("not quiet yet").isEqualTo(3);
		this.clock.advance(Duration.ofMillis(600));
		// another key's call sweeps the batches on its own
		limiter.tryAcquire("other", limit);
		assertThat(limiter.held("hot", List.of(limit))).isZero();
		assertThat(inRedis(Algorithm.FIXED_WINDOW, "hot", limit)).as("3 given back").isEqualTo(9);
	}

	@Test
	void closeGivesBackEveryBatchAndDecidesOneByOneAfterwards() {
		RedisRateLimiter redis = redis(Algorithm.GCRA, counting());
		PrefetchingRateLimiter limiter = prefetching(redis, 5);
		RateLimit limit = RateLimit.of(10, Duration.ofHours(1));
		limiter.tryAcquire("a", limit);
		limiter.tryAcquire("b", limit);
		limiter.close();
		this.calls.clear();
		assertThat(inRedis(Algorithm.GCRA, "a", limit)).isEqualTo(9);
		assertThat(inRedis(Algorithm.GCRA, "b", limit)).isEqualTo(9);
		assertThat(limiter.tryAcquire("a", limit).remaining()).isEqualTo(8);
		assertThat(this.calls).containsExactly("1");
	}

	@Test
	void keepsOneFetchInFlightPerKey() {
		RedisScriptRunner template = RedisScriptRunner.of(RedisTestServer.shared().template());
		CompletableFuture<Void> gate = new CompletableFuture<>();
		AtomicInteger sent = new AtomicInteger();
		RedisScriptRunner held = new RedisScriptRunner() {

			@Override
			@SuppressWarnings("rawtypes")
			public List<?> run(RedisScript<List> script, List<String> keys, List<String> args) {
				sent.incrementAndGet();
				return template.run(script, keys, args);
			}

			@Override
			@SuppressWarnings("rawtypes")
			public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args) {
				sent.incrementAndGet();
				return gate.thenApply((open) -> template.run(script, keys, args));
			}

		};
		PrefetchingRateLimiter limiter = prefetching(redis(Algorithm.FIXED_WINDOW, held), 4);
		RateLimit limit = RateLimit.of(10, Duration.ofHours(1));
		List<CompletableFuture<RateLimitDecision>> decisions = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			decisions.add(limiter.tryAcquireAsync("hot", limit));
		}
		assertThat(sent).as("the first call's batch only").hasValue(1);
		assertThat(decisions).noneMatch(CompletableFuture::isDone);
		gate.complete(null);
		assertThat(decisions).allSatisfy((decision) -> assertThat(decision.join().allowed()).isTrue());
		assertThat(decisions.stream().map((decision) -> decision.join().remaining())).containsExactlyInAnyOrder(6L, 5L,
				4L, 3L);
		assertThat(sent).as("the three others spent it").hasValue(1);
	}

	@Test
	void refusesTheSlidingWindowLogABatchBelowOneAndACallOfNoPermits() {
		RedisRateLimiter redis = redis(Algorithm.SLIDING_WINDOW_LOG, counting());
		assertThatIllegalArgumentException().isThrownBy(() -> PrefetchingRateLimiter.builder(redis, 4))
			.withMessageContaining("sliding-window-log");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PrefetchingRateLimiter.builder(redis(Algorithm.GCRA, counting()), 0))
			.withMessageContaining("prefetch must be at least 1");
		PrefetchingRateLimiter limiter = prefetching(redis(Algorithm.FIXED_WINDOW, counting()), 4);
		RateLimit limit = RateLimit.of(10, Duration.ofHours(1));
		limiter.tryAcquire("hot", limit);
		assertThatIllegalArgumentException().as("not even from a batch that holds permits")
			.isThrownBy(() -> limiter.tryAcquire("hot", List.of(limit), 0))
			.withMessageContaining("permits");
	}

}

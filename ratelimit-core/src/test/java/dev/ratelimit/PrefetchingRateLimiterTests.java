package dev.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

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

	/**
	 * A runner that tells {@code sent} of every call, and whose asynchronous calls reach Redis only once the future
	 * {@code gate} gives at the call completes.
	 */
	private static RedisScriptRunner gated(Supplier<CompletableFuture<Void>> gate, Consumer<List<String>> sent) {
		RedisScriptRunner template = RedisScriptRunner.of(RedisTestServer.shared().template());
		return new RedisScriptRunner() {

			@Override
			@SuppressWarnings("rawtypes")
			public List<?> run(RedisScript<List> script, List<String> keys, List<String> args) {
				sent.accept(args);
				return template.run(script, keys, args);
			}

			@Override
			@SuppressWarnings("rawtypes")
			public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args) {
				sent.accept(args);
				return gate.get().thenApply((open) -> template.run(script, keys, args));
			}

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
	void spendsABatchHereTopsItUpWhenLowAndTellsTheBudgetRedisLeftLessWhatWasSpent() {
		RedisRateLimiter redis = redis(Algorithm.FIXED_WINDOW, counting());
		PrefetchingRateLimiter limiter = prefetching(redis, 4);
		RateLimit limit = RateLimit.of(10, Duration.ofHours(1));
		List<Long> remaining = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RateLimitDecision decision = limiter.tryAcquire("hot", limit);
			assertThat(decision.allowed()).isTrue();
			remaining.add(decision.remaining());
		}
		assertThat(remaining).as("6 left in Redis and 3 held here, then one less per permit spent here")
			.containsExactly(9L, 8L, 7L);
		// the third call left one held, a quarter of the batch: the 3 it lacks were taken behind it
		assertThat(this.calls).as("a batch of 4, topped up by 3").containsExactly("4", "3");
		assertThat(inRedis(Algorithm.FIXED_WINDOW, "hot", limit)).isEqualTo(3);
		assertThat(limiter.held("hot", List.of(limit))).as("a whole batch again").isEqualTo(4);
		assertThat(limiter.tryAcquire("hot", limit).remaining()).as("3 left in Redis and 3 held here").isEqualTo(6);
		assertThat(this.calls).containsExactly("4", "3");
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
		// a batch of 4, top-ups of 3 and 3, a top-up refused with none left, then the calls' own permits
		assertThat(this.calls.subList(0, 5)).containsExactly("4", "3", "3", "3", "1");
		assertThat(this.calls.subList(5, this.calls.size())).as("one by one until the window ends").containsOnly("1");
		assertThat(limiter.held("hot", List.of(limit))).isZero();
	}

	@Test
	void aTopUpThatComesOnceItsWindowEndedIsNeverSpentInTheNext() {
		AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(CompletableFuture.completedFuture(null));
		RedisScriptRunner gated = gated(gate::get, (args) -> this.calls.add(args.get(1)));
		PrefetchingRateLimiter limiter = neverQuiet(redis(Algorithm.FIXED_WINDOW, gated), 4);
		RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1));
		limiter.tryAcquire("hot", limit);
		limiter.tryAcquire("hot", limit);
		gate.set(new CompletableFuture<>());
		// one held: the top-up is on its way, and its answer comes once the window ended
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).containsExactly("4", "3");
		this.clock.advance(Duration.ofSeconds(61));
		gate.get().complete(null);
		assertThat(limiter.tryAcquire("hot", limit).remaining()).as("a batch of the new window: 6 in Redis, 3 held")
			.isEqualTo(9);
		assertThat(this.calls).containsExactly("4", "3", "4");
		assertThat(inRedis(Algorithm.FIXED_WINDOW, "hot", limit)).as("nothing of the old window spent in the new one")
			.isEqualTo(6);
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
		assertThat(limiter.tryAcquire("hot", limit).remaining()).as("a batch of the new window: 6 in Redis, 3 held")
			.isEqualTo(9);
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
		PrefetchingRateLimiter limiter = neverQuiet(redis, 8);
		// a token a second, up to 10
		RateLimit limit = RateLimit.of(10, Duration.ofSeconds(10));
		assertThat(redis.tryAcquire("hot", limit, 2).allowed()).isTrue();
		this.calls.clear();
		assertThat(limiter.tryAcquire("hot", limit).remaining()).as("the bucket emptied by the batch, 7 held")
			.isEqualTo(7);
		// 7 held, 0 in Redis: the next may be spent until (10 - 0 - 1 - 7) s, the one after until 3 s, then 4 s
		this.clock.advance(Duration.ofMillis(1_900));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		this.clock.advance(Duration.ofMillis(1_000));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).as("two tokens spent here").containsExactly("8");
		// 4.5 s: 4 tokens back in Redis and 5 held would be 9 + the refill to come; the held tokens go back
		this.clock.advance(Duration.ofMillis(1_600));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).as("the held tokens given back, a new batch taken").containsExactly("8", "5", "8");
	}

	@Test
	void aTokenBucketTopUpCountsWhatTheBatchHoldsAgainstTheBucketsCapacity() {
		RedisRateLimiter redis = redis(Algorithm.TOKEN_BUCKET, counting());
		PrefetchingRateLimiter limiter = neverQuiet(redis, 4);
		// a token a second, up to 10
		RateLimit limit = RateLimit.of(10, Duration.ofSeconds(10));
		assertThat(redis.tryAcquire("hot", limit, 3).allowed()).isTrue();
		this.calls.clear();
		limiter.tryAcquire("hot", limit);
		limiter.tryAcquire("hot", limit);
		limiter.tryAcquire("hot", limit);
		// 1 held and a top-up of 3: 4 held, none in Redis, so the next may be spent until (10 - 0 - 1 - 4) s
		assertThat(this.calls).containsExactly("4", "3");
		assertThat(limiter.held("hot", List.of(limit))).isEqualTo(4);
		this.clock.advance(Duration.ofMillis(4_900));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).containsExactly("4", "3");
		// 3 held: until 6 s; at 6.1 s, the held tokens go back and a batch is taken again
		this.clock.advance(Duration.ofMillis(1_200));
		assertThat(limiter.tryAcquire("hot", limit).allowed()).isTrue();
		assertThat(this.calls).containsExactly("4", "3", "3", "4");
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
		CompletableFuture<Void> gate = new CompletableFuture<>();
		AtomicInteger sent = new AtomicInteger();
		RedisScriptRunner held = gated(() -> gate, (args) -> sent.incrementAndGet());
		PrefetchingRateLimiter limiter = prefetching(redis(Algorithm.FIXED_WINDOW, held), 8);
		RateLimit limit = RateLimit.of(20, Duration.ofHours(1));
		List<CompletableFuture<RateLimitDecision>> decisions = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			decisions.add(limiter.tryAcquireAsync("hot", limit));
		}
		assertThat(sent).as("the first call's batch only").hasValue(1);
		assertThat(decisions).noneMatch(CompletableFuture::isDone);
		gate.complete(null);
		assertThat(decisions).allSatisfy((decision) -> assertThat(decision.join().allowed()).isTrue());
		assertThat(decisions.stream().map((decision) -> decision.join().remaining())).containsExactlyInAnyOrder(19L, 18L,
				17L, 16L);
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

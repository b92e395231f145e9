package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterTimeoutException;
import dev.ratelimit.RateLimiters;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A call whose caller gave up charges nothing: with Redis's scripts paused ({@code CLIENT PAUSE WRITE}) until the
 * runner's timeout has failed the calls (or the fallback has decided them), Redis runs their scripts when it resumes,
 * and what those took is given back as their replies come. On every path: single decisions, synchronous or not, reservations, blocking
 * limiters, calls decided together, batched calls and slots of work in flight.
 */
class TimedOutCallsTests {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	/** Only if the test never ends the pause: each ends it as soon as its calls have failed. */
	private static final Duration PAUSE_AT_MOST = Duration.ofSeconds(60);

	private static final int CALLS = 6;

	private static final RateLimit TEN_AN_HOUR = RateLimit.of(10, Duration.ofHours(1));

	private final RedisTestServer redis = RedisTestServer.shared();

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void decisionsAndReservationsThatTimedOutAreGivenBackWhenRedisRunsThem(Algorithm algorithm) throws Exception {
		RedisRateLimiter limiter = limiter(algorithm, runner(false), null);
		String key = "decided-" + UUID.randomUUID();
		assertThat(limiter.tryAcquire(key, TEN_AN_HOUR).remaining()).isEqualTo(9);
		List<Throwable> failures = duringPause(CALLS, (i) -> switch (i % 3) {
			case 0 -> CompletableFuture.runAsync(() -> limiter.tryAcquire(key, TEN_AN_HOUR));
			case 1 -> limiter.tryAcquireAsync(key, List.of(TEN_AN_HOUR), 2);
			default -> CompletableFuture.runAsync(() -> limiter.reserve(key, List.of(TEN_AN_HOUR), 3, Duration.ofMinutes(1)));
		});
		assertThat(failures).hasSize(CALLS).allSatisfy(TimedOutCallsTests::timedOutByRedis);
		awaitRemaining(limiter, key, 9);
	}

	@Test
	void decisionsTheFallbackTookWhileRedisWasLateAreGivenBackInRedis() throws Exception {
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, runner(false), new LocalRateLimiter(100));
		String key = "fallback-" + UUID.randomUUID();
		assertThat(limiter.tryAcquire(key, TEN_AN_HOUR).remaining()).isEqualTo(9);
		List<Throwable> failures = duringPause(CALLS, (i) -> limiter.tryAcquireAsync(key, List.of(TEN_AN_HOUR), 1));
		// decided in memory meanwhile
		assertThat(failures).isEmpty();
		awaitRemaining(limiter, key, 9);
	}

	@Test
	void decisionsOfABlockingLimiterThatTimedOutAreGivenBack() throws Exception {
		BlockingRateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, runner(false), null)
			.blocking(BlockPolicy.of(Duration.ofMinutes(1)));
		String key = "blocking-" + UUID.randomUUID();
		assertThat(limiter.tryAcquire(key, TEN_AN_HOUR).remaining()).isEqualTo(9);
		List<Throwable> failures = duringPause(CALLS, (i) -> limiter.tryAcquireAsync(key, List.of(TEN_AN_HOUR), 1));
		assertThat(failures).hasSize(CALLS).allSatisfy(TimedOutCallsTests::timedOutByRedis);
		awaitRemaining(limiter, key, 9);
	}

	@Test
	void batchedDecisionsThatTimedOutAreGivenBack() throws Exception {
		RedisRateLimiter limiter = limiter(Algorithm.GCRA, runner(true), null);
		String key = "batched-" + UUID.randomUUID();
		assertThat(limiter.tryAcquire(key, TEN_AN_HOUR).remaining()).isEqualTo(9);
		// more calls than the lane keeps in flight: those after travel together in one batch
		int calls = BatchLane.DEPTH + 6;
		List<Throwable> failures = duringPause(calls, (i) -> limiter.tryAcquireAsync(key, List.of(TEN_AN_HOUR), 1));
		assertThat(failures).hasSize(calls).allSatisfy(TimedOutCallsTests::timedOutByRedis);
		awaitRemaining(limiter, key, 9);
	}

	@Test
	void callsDecidedTogetherThatTimedOutAreGivenBackSlotsIncluded() throws Exception {
		RedisRateLimiter limiter = limiter(Algorithm.SLIDING_WINDOW_COUNTER, runner(false), null);
		String key = "together-" + UUID.randomUUID();
		assertThat(limiter.tryAcquire(key, TEN_AN_HOUR).remaining()).isEqualTo(9);
		List<Throwable> failures = duringPause(CALLS,
				(i) -> RateLimiters.tryAcquireTogetherAsync(List.of(new RateLimiters.Call(limiter, key, List.of(TEN_AN_HOUR), 1),
						RateLimiters.Call.slot(limiter, key, 100, Duration.ofMinutes(10)))));
		assertThat(failures).hasSize(CALLS).allSatisfy(TimedOutCallsTests::timedOutByRedis);
		awaitRemaining(limiter, key, 9);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(slotsHeld(limiter, key)).isZero());
	}

	@Test
	void slotsTakenForCallersThatGaveUpAreGivenBack() throws Exception {
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, runner(false), null);
		String key = "slots-" + UUID.randomUUID();
		List<Throwable> failures = duringPause(CALLS, (i) -> limiter.tryAcquireSlotAsync(key, 100, Duration.ofMinutes(10)));
		assertThat(failures).hasSize(CALLS).allSatisfy(TimedOutCallsTests::timedOutByRedis);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(slotsHeld(limiter, key)).isZero());
	}

	/**
	 * Pauses Redis's scripts, makes {@code count} calls at once (many threads, a start latch), waits for each to be
	 * answered or to fail, then lets Redis run what it held: the calls are late however long they take to be made.
	 * @return the failures
	 */
	private List<Throwable> duringPause(int count, Function<Integer, CompletableFuture<?>> call) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(count);
		List<Future<CompletableFuture<?>>> made = new ArrayList<>();
		try (RedisTestServer.Pause pause = this.redis.pauseWrites(PAUSE_AT_MOST)) {
			for (int i = 0; i < count; i++) {
				int index = i;
				made.add(pool.submit(() -> {
					start.await();
					return call.apply(index);
				}));
			}
			start.countDown();
			List<Throwable> failures = new ArrayList<>();
			for (Future<CompletableFuture<?>> future : made) {
				CompletableFuture<?> answer = future.get();
				try {
					answer.join();
				}
				catch (RuntimeException ex) {
					failures.add(Futures.unwrap(ex));
				}
			}
			return failures;
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static void timedOutByRedis(Throwable failure) {
		assertThat(failure).isInstanceOfSatisfying(RateLimiterTimeoutException.class,
				(timeout) -> assertThat(timeout.culprit()).isEqualTo(RateLimiterTimeoutException.Culprit.REDIS));
	}

	private static void awaitRemaining(RateLimiter limiter, String key, long remaining) {
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(limiter.inspect(key, List.of(TEN_AN_HOUR)).get(0).remaining())
				.isEqualTo(remaining));
	}

	private long slotsHeld(RedisRateLimiter limiter, String key) {
		Long held = this.redis.template().opsForZSet().zCard(limiter.slotKey(key));
		return (held != null) ? held : 0;
	}

	private LettuceScriptRunner runner(boolean batching) {
		LettuceConnectionFactory factory = this.redis.newConnectionFactory();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, TIMEOUT, batching);
		runner.start();
		this.resources.add(runner);
		return runner;
	}

	private static RedisRateLimiter limiter(Algorithm algorithm, RedisScriptRunner runner,
			@Nullable LocalRateLimiter fallback) {
		return RedisRateLimiter.builder(algorithm, runner)
			.keyPrefix("timed-out-" + UUID.randomUUID().toString().substring(0, 8))
			.fallback(fallback)
			.build();
	}

}

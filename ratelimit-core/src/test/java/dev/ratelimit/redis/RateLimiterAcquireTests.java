package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code acquire} waits for the permits as long as the caller allows and no longer, across instances
 * sharing one Redis: outbound throttling to a partner that allows so many calls per window.
 */
class RateLimiterAcquireTests {

	private static final int LIMIT = 4;

	private static final Duration WINDOW = Duration.ofMillis(400);

	private static final Duration MAX_WAIT = Duration.ofSeconds(5);

	// one Redis round trip and a thread's wake-up beyond the last sleep; generous for a loaded CI machine
	private static final Duration LATE = Duration.ofMillis(500);

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void threadsOfTwoInstancesNeverExceedTheLimitOfAWindowNorWaitLongerThanAllowed() throws Exception {
		String prefix = "acquire-" + UUID.randomUUID().toString().substring(0, 8);
		// two instances: each with a connection of its own to the one Redis
		List<RedisRateLimiter> instances = List.of(instance(prefix), instance(prefix));
		RateLimit limit = RateLimit.of(LIMIT, WINDOW);
		int threads = 6;
		int callsPerThread = 4;
		ConcurrentLinkedQueue<Grant> grants = new ConcurrentLinkedQueue<>();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<List<Long>>> waits = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				RedisRateLimiter limiter = instances.get(t % 2);
				waits.add(pool.submit(() -> {
					start.await();
					List<Long> waited = new ArrayList<>();
					for (int i = 0; i < callsPerThread; i++) {
						long started = System.nanoTime();
						RateLimitDecision decision = limiter.acquire("partner", limit, 1, MAX_WAIT);
						long answered = System.nanoTime();
						waited.add(answered - started);
						assertThat(decision.allowed()).isTrue();
						grants.add(new Grant(answered, decision.resetAfter().toNanos()));
					}
					return waited;
				}));
			}
			start.countDown();
			for (Future<List<Long>> wait : waits) {
				assertThat(wait.get(60, TimeUnit.SECONDS))
					.allSatisfy((nanos) -> assertThat(Duration.ofNanos(nanos)).isLessThan(MAX_WAIT.plus(LATE)));
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(grants).hasSize(threads * callsPerThread);
		// a grant's window ends resetAfter after it was answered; windows are at least WINDOW apart, so grants
		// whose estimated ends lie within a quarter window of each other belong to the same window
		List<Long> ends = grants.stream().map(Grant::windowEnd).sorted().toList();
		List<Integer> perWindow = new ArrayList<>();
		long windowEnd = Long.MIN_VALUE;
		for (long end : ends) {
			if (perWindow.isEmpty() || end - windowEnd > WINDOW.toNanos() / 4) {
				perWindow.add(0);
				windowEnd = end;
			}
			perWindow.set(perWindow.size() - 1, perWindow.get(perWindow.size() - 1) + 1);
		}
		assertThat(perWindow).allSatisfy((count) -> assertThat(count).isLessThanOrEqualTo(LIMIT));
		assertThat(perWindow.size()).isGreaterThanOrEqualTo(threads * callsPerThread / LIMIT);
	}

	@Test
	void returnsTheRefusalAtOnceWhenTheWaitWouldExceedMaxWait() {
		RedisRateLimiter limiter = instance("acquire-" + UUID.randomUUID().toString().substring(0, 8));
		RateLimit onePerMinute = RateLimit.of(1, Duration.ofMinutes(1));
		assertThat(limiter.acquire("slow", onePerMinute, 1, Duration.ofSeconds(1)).allowed()).isTrue();
		long started = System.nanoTime();
		RateLimitDecision refused = limiter.acquire("slow", onePerMinute, 1, Duration.ofSeconds(1));
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isGreaterThan(Duration.ofSeconds(1));
		// no sleep of a second: it did not wait for a grant it knew could not come in time
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
	}

	@Test
	void waitsForTheRetryTimeItWasTold() {
		RedisRateLimiter limiter = instance("acquire-" + UUID.randomUUID().toString().substring(0, 8));
		RateLimit limit = RateLimit.of(1, Duration.ofMillis(300));
		assertThat(limiter.acquire("wait", limit, 1, Duration.ZERO).allowed()).isTrue();
		assertThat(limiter.acquire("wait", limit, 1, Duration.ZERO).allowed()).isFalse();
		long started = System.nanoTime();
		assertThat(limiter.acquire("wait", limit, 1, Duration.ofSeconds(2)).allowed()).isTrue();
		// it slept until the window's end, not less
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(100));
	}

	@Test
	void rejectsANegativeMaxWait() {
		RedisRateLimiter limiter = instance("acquire");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> limiter.acquire("key", RateLimit.of(1, Duration.ofSeconds(1)), 1, Duration.ofSeconds(-1)))
			.withMessageContaining("maxWait");
	}

	private RedisRateLimiter instance(String prefix) {
		LettuceConnectionFactory factory = RedisTestServer.shared().newConnectionFactory();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofSeconds(2));
		this.resources.add(runner);
		return RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner).keyPrefix(prefix).build();
	}

	private record Grant(long answered, long resetAfter) {

		long windowEnd() {
			return this.answered + this.resetAfter;
		}

	}

}

package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
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
		// two instances: each with a connection of its own to the one Redis, on the clock of this host
		RecordingClock clock = new RecordingClock();
		List<RedisRateLimiter> instances = List.of(instance(prefix, clock), instance(prefix, clock));
		RateLimit limit = RateLimit.of(LIMIT, WINDOW);
		int threads = 6;
		int callsPerThread = 4;
		ConcurrentLinkedQueue<Instant> windowEnds = new ConcurrentLinkedQueue<>();
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
						windowEnds.add(clock.lastReadOnThisThread().plus(decision.resetAfter()));
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
		assertThat(windowEnds).hasSize(threads * callsPerThread);
		// a grant's window ends resetAfter after the instant it was decided at (the limiter's clock, read by the
		// thread that made the call): the grants of one window name its end to the microsecond, however late their
		// answers came on a loaded machine
		Map<Instant, Long> perWindow = windowEnds.stream()
			.collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
		assertThat(perWindow.values()).allSatisfy((count) -> assertThat(count).isLessThanOrEqualTo(LIMIT));
		assertThat(perWindow).hasSizeGreaterThanOrEqualTo(threads * callsPerThread / LIMIT);
	}

	@Test
	void returnsTheRefusalAtOnceWhenTheWaitWouldExceedMaxWait() {
		RedisRateLimiter limiter = instance("acquire-" + UUID.randomUUID().toString().substring(0, 8), null);
		RateLimit onePerHour = RateLimit.of(1, Duration.ofHours(1));
		Duration maxWait = Duration.ofSeconds(30);
		assertThat(limiter.acquire("slow", onePerHour, 1, maxWait).allowed()).isTrue();
		long started = System.nanoTime();
		RateLimitDecision refused = limiter.acquire("slow", onePerHour, 1, maxWait);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isGreaterThan(maxWait);
		// no sleep until maxWait is over: it did not wait for a grant it knew could not come in time (one call to
		// Redis takes a small part of those 30 s even on a loaded machine)
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(maxWait);
	}

	@Test
	void waitsForTheRetryTimeItWasTold() {
		RedisRateLimiter limiter = instance("acquire-" + UUID.randomUUID().toString().substring(0, 8), null);
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
		RedisRateLimiter limiter = instance("acquire", null);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> limiter.acquire("key", RateLimit.of(1, Duration.ofSeconds(1)), 1, Duration.ofSeconds(-1)))
			.withMessageContaining("maxWait");
	}

	private RedisRateLimiter instance(String prefix, @Nullable Clock clock) {
		LettuceConnectionFactory factory = RedisTestServer.shared().newConnectionFactory();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofSeconds(2));
		this.resources.add(runner);
		return RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner).keyPrefix(prefix).clock(clock).build();
	}

	/**
	 * The system clock, remembering on each thread the instant it last gave, to the microsecond the scripts count in:
	 * the instant the thread's last decision was made at.
	 */
	private static final class RecordingClock extends Clock {

		private final ThreadLocal<Instant> lastRead = new ThreadLocal<>();

		Instant lastReadOnThisThread() {
			return this.lastRead.get();
		}

		@Override
		public Instant instant() {
			Instant now = Clock.systemUTC().instant().truncatedTo(ChronoUnit.MICROS);
			this.lastRead.set(now);
			return now;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			throw new UnsupportedOperationException("A clock of the UTC zone only");
		}

	}

}

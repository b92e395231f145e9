package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiterTimeoutException;
import dev.ratelimit.RateLimiterTimeoutException.Culprit;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A call is timed out by Redis's lateness, not by this JVM's: with a stall of this JVM injected into the runner's
 * stall clock (time its threads were kept from a CPU after the call was made), a Redis pause longer than the timeout
 * but shorter than the stall times no call out, on every path; the same pause without the stall does, and says it
 * was Redis; a stall longer than a call's patience times it out and says it was this JVM. No timing assertions:
 * Redis is paused for longer than the timeout (until the call has failed), or for much less than the patience a stall
 * gives.
 */
class TimeoutCulpritTests {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	/** Only if a test never ends its pause: each ends it once its call has failed. */
	private static final Duration PAUSE_AT_MOST = Duration.ofSeconds(60);

	private static final RateLimit TEN_AN_HOUR = RateLimit.of(10, Duration.ofHours(1));

	private final RedisTestServer redis = RedisTestServer.shared();

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final InjectedStall stall = new InjectedStall();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@ParameterizedTest
	@EnumSource(Path.class)
	void aStallOfThisJvmLongerThanTheTimeoutTimesNoCallOut(Path path) {
		LettuceScriptRunner runner = runner();
		RedisRateLimiter limiter = limiter(runner);
		String key = "stalled-" + UUID.randomUUID();
		// Redis late by 600 ms, on its own clock: this JVM was kept from a CPU for 5 s after the call was made, and
		// Redis's 600 ms are well within its patience
		try (RedisTestServer.Pause pause = this.redis.pauseWrites(Duration.ofMillis(600))) {
			this.stall.afterTheNextCall(TimeUnit.SECONDS.toNanos(5));
			path.run(limiter, key);
		}
		assertThat(runner.timeouts(Culprit.REDIS) + runner.timeouts(Culprit.CLIENT)).isZero();
	}

	@ParameterizedTest
	@EnumSource(Path.class)
	void aRedisPauseTimesACallOutAndSaysItWasRedis(Path path) {
		LettuceScriptRunner runner = runner();
		RedisRateLimiter limiter = limiter(runner);
		String key = "paused-" + UUID.randomUUID();
		try (RedisTestServer.Pause pause = this.redis.pauseWrites(PAUSE_AT_MOST)) {
			assertThatExceptionOfType(RateLimiterTimeoutException.class).isThrownBy(() -> path.run(limiter, key))
				.satisfies((timeout) -> assertThat(timeout.culprit()).isEqualTo(Culprit.REDIS));
		}
		// a slot's call is followed by its release, which may have timed out too by now
		assertThat(runner.timeouts(Culprit.REDIS)).isBetween(1L, (path == Path.SLOT) ? 2L : 1L);
		assertThat(runner.timeouts(Culprit.CLIENT)).isZero();
	}

	@Test
	void aStallLongerThanACallsPatienceTimesItOutAndSaysItWasThisJvm() {
		LettuceScriptRunner runner = runner();
		RedisRateLimiter limiter = limiter(runner);
		String key = "starved-" + UUID.randomUUID();
		// a call is given ten timeouts, at least a second, of stalls: 2 s here; Redis answers when the call has failed
		try (RedisTestServer.Pause pause = this.redis.pauseWrites(PAUSE_AT_MOST)) {
			this.stall.afterTheNextCall(TimeUnit.SECONDS.toNanos(60));
			assertThatExceptionOfType(RateLimiterTimeoutException.class)
				.isThrownBy(() -> limiter.tryAcquire(key, TEN_AN_HOUR))
				.satisfies((timeout) -> assertThat(timeout.culprit()).isEqualTo(Culprit.CLIENT))
				.withMessageContaining("this JVM kept its I/O thread from a CPU");
		}
		assertThat(runner.timeouts(Culprit.CLIENT)).isOne();
		assertThat(runner.timeouts(Culprit.REDIS)).isZero();
	}

	private LettuceScriptRunner runner() {
		LettuceConnectionFactory factory = this.redis.newConnectionFactory();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, TIMEOUT, false, this.stall);
		runner.start();
		this.resources.add(runner);
		// the stall clock measures the connection's event loop once a reply's callback has run on it (the start's may
		// run on the thread that waited for them): a call answered first, so that a stall injected later is judged
		// on that loop, as in an application that has made calls before
		String warmUp = "culprit-warm-up-" + UUID.randomUUID();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			runner.run(RedisScripts.of(Algorithm.FIXED_WINDOW).script(), List.of(warmUp), List.of("", "1", "10", "60000000", "10"));
			return this.stall.knowsLoop();
		});
		return runner;
	}

	private static RedisRateLimiter limiter(LettuceScriptRunner runner) {
		return RedisRateLimiter.builder(Algorithm.TOKEN_BUCKET, runner)
			.keyPrefix("culprit-" + UUID.randomUUID().toString().substring(0, 8))
			.build();
	}

	/** Every path a call takes through the runner: decisions, reservations, slots, settlements. */
	enum Path {

		DECISION {
			@Override
			void run(RedisRateLimiter limiter, String key) {
				assertThat(limiter.tryAcquire(key, TEN_AN_HOUR).allowed()).isTrue();
			}
		},

		ASYNCHRONOUS_DECISION {
			@Override
			void run(RedisRateLimiter limiter, String key) {
				assertThat(Futures.join(limiter.tryAcquireAsync(key, List.of(TEN_AN_HOUR), 1)).get(0).allowed()).isTrue();
			}
		},

		RESERVATION {
			@Override
			void run(RedisRateLimiter limiter, String key) {
				assertThat(limiter.reserve(key, List.of(TEN_AN_HOUR), 3, Duration.ofMinutes(1)).granted()).isTrue();
			}
		},

		SLOT {
			@Override
			void run(RedisRateLimiter limiter, String key) {
				assertThat(limiter.tryAcquireSlot(key, 2, Duration.ofMinutes(1)).acquired()).isTrue();
			}
		},

		SETTLEMENT {
			@Override
			void run(RedisRateLimiter limiter, String key) {
				Futures.join(limiter.chargeAsync(key, List.of(TEN_AN_HOUR), 4));
			}
		};

		abstract void run(RedisRateLimiter limiter, String key);

	}

	/**
	 * The runner's stall clock, and a stall injected after the next call is made: the call reads the clock when it
	 * is made, every later read adds the stall.
	 */
	static final class InjectedStall extends StallClock {

		private final AtomicLong armed = new AtomicLong(-1);

		private volatile long injected;

		void afterTheNextCall(long nanos) {
			this.armed.set(nanos);
		}

		@Override
		long stalled() {
			long stall = this.armed.getAndSet(-1);
			long stalled = super.stalled() + this.injected;
			if (stall >= 0) {
				this.injected += stall;
			}
			return stalled;
		}

	}

}

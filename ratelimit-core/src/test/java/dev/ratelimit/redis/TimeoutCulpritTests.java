package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
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
import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A call is timed out by Redis's lateness, not by this JVM's: with a stall of this JVM injected into the runner's
 * stall clock (time its threads were kept from a CPU after the call was made), a Redis pause longer than the timeout
 * but shorter than the stall times no call out, on every path; the same pause without the stall does, and says it
 * was Redis; a stall longer than a call's patience times it out and says it was this JVM. No timing assertions:
 * Redis is paused for longer than the timeout, for much less than the patience a stall gives.
 */
class TimeoutCulpritTests {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

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
		pauseRedis(600);
		// this JVM was kept from a CPU for 5 s after the call was made: Redis's 600 ms are well within its patience
		this.stall.afterTheNextCall(TimeUnit.SECONDS.toNanos(5));
		path.run(limiter, key);
		assertThat(runner.timeouts(Culprit.REDIS) + runner.timeouts(Culprit.CLIENT)).isZero();
	}

	@ParameterizedTest
	@EnumSource(Path.class)
	void aRedisPauseTimesACallOutAndSaysItWasRedis(Path path) {
		LettuceScriptRunner runner = runner();
		RedisRateLimiter limiter = limiter(runner);
		String key = "paused-" + UUID.randomUUID();
		pauseRedis(1_500);
		assertThatExceptionOfType(RateLimiterTimeoutException.class).isThrownBy(() -> path.run(limiter, key))
			.satisfies((timeout) -> assertThat(timeout.culprit()).isEqualTo(Culprit.REDIS));
		// a slot's call is followed by its release, which may have timed out too by now
		assertThat(runner.timeouts(Culprit.REDIS)).isBetween(1L, (path == Path.SLOT) ? 2L : 1L);
		assertThat(runner.timeouts(Culprit.CLIENT)).isZero();
	}

	@Test
	void aStallLongerThanACallsPatienceTimesItOutAndSaysItWasThisJvm() {
		LettuceScriptRunner runner = runner();
		RedisRateLimiter limiter = limiter(runner);
		String key = "starved-" + UUID.randomUUID();
		// a call is given ten timeouts, at least a second, of stalls: 2 s here; Redis answers after 3 s
		pauseRedis(3_000);
		this.stall.afterTheNextCall(TimeUnit.SECONDS.toNanos(60));
		assertThatExceptionOfType(RateLimiterTimeoutException.class)
			.isThrownBy(() -> limiter.tryAcquire(key, TEN_AN_HOUR))
			.satisfies((timeout) -> assertThat(timeout.culprit()).isEqualTo(Culprit.CLIENT))
			.withMessageContaining("this JVM kept its I/O thread from a CPU");
		assertThat(runner.timeouts(Culprit.CLIENT)).isOne();
		assertThat(runner.timeouts(Culprit.REDIS)).isZero();
	}

	private void pauseRedis(long millis) {
		this.redis.template()
			.execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT",
					"PAUSE".getBytes(StandardCharsets.UTF_8), Long.toString(millis).getBytes(StandardCharsets.UTF_8)));
	}

	private LettuceScriptRunner runner() {
		LettuceConnectionFactory factory = this.redis.newConnectionFactory();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, TIMEOUT, false, this.stall);
		runner.start();
		this.resources.add(runner);
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

package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.SocketOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiterTimeoutException;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.testsupport.ClosedPort;
import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.testsupport.SilentServer;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Decisions bounded by the runner's timeout whatever Redis does, against real servers.
 */
class LettuceScriptRunnerTests {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	/** Only if the test never ends its pause of Redis: it ends it once its call has failed. */
	private static final Duration PAUSE_AT_MOST = Duration.ofSeconds(60);

	private static final RateLimit LIMIT = RateLimit.of(100, Duration.ofMinutes(1));

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void runsScriptsAndLoadsThemAgainAfterTheServerForgotThem() {
		RedisTestServer redis = RedisTestServer.shared();
		FixedWindowRateLimiter limiter = limiter(runner(redis.host(), redis.port()), null, null);
		String key = "runner-" + UUID.randomUUID();
		assertThat(limiter.tryAcquire(key, LIMIT).remaining()).isEqualTo(99);
		redis.template().execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		assertThat(limiter.tryAcquire(key, LIMIT).remaining()).isEqualTo(98);
	}

	@Test
	void failsAtOnceABlockingDecisionMadeOnTheThreadThatReadsRedisReplies() throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		StallClock clock = new StallClock();
		LettuceScriptRunner runner = runner(redis.host(), redis.port(), clock);
		// connected and the scripts loaded, as the application context starts it
		runner.start();
		FixedWindowRateLimiter limiter = limiter(runner, null, null);
		String key = "runner-" + UUID.randomUUID();
		assertThat(limiter.tryAcquire(key, LIMIT).remaining()).isEqualTo(99);
		// the connection's event loop, learnt from the reply's thread: as a server's loop is Lettuce's with
		// ratelimit.lettuce.shared-event-loops
		io.netty.util.concurrent.EventExecutor loop = clock.loop();
		assertThat(loop).isNotNull();
		Throwable onLoop = loop.submit(() -> org.assertj.core.api.Assertions.catchThrowable(() -> limiter.tryAcquire(key, LIMIT)))
			.get(30, java.util.concurrent.TimeUnit.SECONDS);
		assertThat(onLoop).isInstanceOf(RateLimiterTimeoutException.class)
			.hasMessageContaining("the event loop that reads Redis' replies");
		assertThat(limiter.tryAcquire(key, LIMIT).remaining()).as("nothing was sent for it").isEqualTo(98);
	}

	@Test
	void givesUpWithinItsTimeoutWhenRedisAnswersNothing() {
		SilentServer silent = SilentServer.start();
		FixedWindowRateLimiter limiter = limiter(runner(RedisServerProcess.HOST, silent.port()), null, null);
		// closed first: the client's handshake then fails at once instead of waiting out its own timeout
		this.resources.add(silent);
		for (int i = 0; i < 3; i++) {
			long started = System.nanoTime();
			assertThatExceptionOfType(RateLimiterUnavailableException.class)
				.isThrownBy(() -> limiter.tryAcquire("silent", LIMIT))
				.withCauseInstanceOf(QueryTimeoutException.class);
			// Lettuce alone would wait for its connect timeout (10 s), then its command timeout (60 s); the runner
			// gives up after its 200 ms, stretched by its patience with this JVM's stalls on a loaded machine
			assertThat(Duration.ofNanos(System.nanoTime() - started))
				.isLessThan(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION);
		}
	}

	@Test
	void failsAtOnceWhenConnectionsAreRefused() {
		FixedWindowRateLimiter limiter = limiter(runner(RedisServerProcess.HOST, ClosedPort.reserve()), null, null);
		assertThatExceptionOfType(RateLimiterUnavailableException.class)
			.isThrownBy(() -> limiter.tryAcquire("refused", LIMIT))
			.withCauseInstanceOf(DataAccessException.class);
	}

	@Test
	void givesUpWithinItsTimeoutWhileRedisIsPausedAndRecovers() {
		RedisTestServer redis = RedisTestServer.shared();
		FixedWindowRateLimiter limiter = limiter(runner(redis.host(), redis.port()), null, null);
		String key = "paused-" + UUID.randomUUID();
		assertThat(limiter.tryAcquire(key, LIMIT).allowed()).isTrue();
		try (RedisTestServer.Pause pause = redis.pauseWrites(PAUSE_AT_MOST)) {
			long started = System.nanoTime();
			assertThatExceptionOfType(RateLimiterUnavailableException.class)
				.isThrownBy(() -> limiter.tryAcquire(key, LIMIT))
				.withCauseInstanceOf(QueryTimeoutException.class);
			// given up after the 200 ms timeout, long before Redis answers (the pause ends here, once it has)
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(PAUSE_AT_MOST);
		}
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> limiter.tryAcquire(key, LIMIT).allowed());
	}

	@Test
	void decidesLocallyWhileRedisIsDownStopsCallingItAndReturnsWhenItIsBack() {
		RedisServerProcess server = RedisServerProcess.start(RedisBinary.find());
		this.resources.add(server::stop);
		AtomicInteger redisCalls = new AtomicInteger();
		LettuceScriptRunner runner = runner(RedisServerProcess.HOST, server.port());
		RedisScriptRunner counting = (script, keys, args) -> {
			redisCalls.incrementAndGet();
			return runner.run(script, keys, args);
		};
		// the breaker's clock moves only when the test says, so that no probe slips in on a slow machine
		AtomicLong breakerClock = new AtomicLong();
		CircuitBreaker breaker = new CircuitBreaker("Redis", 3, Duration.ofSeconds(1), breakerClock::get);
		FixedWindowRateLimiter limiter = limiter(counting, breaker, new LocalRateLimiter(1_000));
		RateLimit threePerMinute = RateLimit.of(3, Duration.ofMinutes(1));
		assertThat(limiter.tryAcquire("a", threePerMinute).remaining()).isEqualTo(2);

		server.stop();
		List<RateLimitDecision> local = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			local.add(limiter.tryAcquire("a", threePerMinute));
		}
		// this instance still enforces the limit on its own, and Redis is spared after three failures
		assertThat(local).filteredOn(RateLimitDecision::allowed).hasSize(3);
		assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(redisCalls).hasValue(1 + 3);

		RedisServerProcess restarted = RedisServerProcess.start(RedisBinary.find(), server.port());
		this.resources.add(restarted::stop);
		// Redis' own count (1 permit taken before it stopped) is lost with the server; a fresh one is used
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
			breakerClock.addAndGet(Duration.ofSeconds(1).toNanos());
			return limiter.tryAcquire("b", threePerMinute).remaining() == 2
					&& breaker.state() == CircuitBreaker.State.CLOSED;
		});
	}

	private LettuceScriptRunner runner(String host, int port) {
		return runner(host, port, new StallClock());
	}

	private LettuceScriptRunner runner(String host, int port, StallClock clock) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		factory.afterPropertiesSet();
		factory.start();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, TIMEOUT, false, clock);
		this.resources.add(runner);
		return runner;
	}

	private static FixedWindowRateLimiter limiter(RedisScriptRunner runner, CircuitBreaker breaker,
			LocalRateLimiter fallback) {
		return new FixedWindowRateLimiter(RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner)
			.keyPrefix("runner-" + UUID.randomUUID().toString().substring(0, 8))
			.circuitBreaker(breaker)
			.fallback(fallback)
			.build());
	}

}

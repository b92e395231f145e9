package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.netty.channel.DefaultEventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.testsupport.ClosedPort;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.testsupport.SilentServer;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The asynchronous API against real servers: the same decisions as the blocking one, no thread held
 * while Redis answers, and Redis failing completes the future exceptionally or goes to the fallback.
 */
class RedisRateLimiterAsyncTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	private static final RateLimit THREE_PER_MINUTE = RateLimit.of(3, Duration.ofMinutes(1));

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void decidesAsTheBlockingCallDoes(Algorithm algorithm) throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		RedisRateLimiter limiter = limiter(algorithm, runner(redis.host(), redis.port())).build();
		List<RateLimitDecision> decisions = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			decisions.add(limiter.tryAcquireAsync("async", THREE_PER_MINUTE).get(5, TimeUnit.SECONDS));
		}
		assertThat(decisions).extracting(RateLimitDecision::allowed).containsExactly(true, true, true, false);
		assertThat(decisions).extracting(RateLimitDecision::remaining).containsExactly(2L, 1L, 0L, 0L);
		// the counter waits until its fixed window ends and then until the previous window's 3 weigh 2 or less:
		// up to 60s + 20s, when the calls fall early in the window
		Duration longest = (algorithm == Algorithm.SLIDING_WINDOW_COUNTER) ? Duration.ofSeconds(80)
				: Duration.ofMinutes(1);
		assertThat(decisions.get(3).retryAfter()).isPositive().isLessThanOrEqualTo(longest);
		// the blocking call reads the same state
		assertThat(limiter.tryAcquire("async", THREE_PER_MINUTE).allowed()).isFalse();
	}

	@Test
	void chargesSeveralLimitsAllOrNothing() throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		RedisRateLimiter limiter = limiter(Algorithm.SLIDING_WINDOW_COUNTER, runner(redis.host(), redis.port())).build();
		List<RateLimit> limits = List.of(RateLimit.of(2, Duration.ofSeconds(10)), RateLimit.of(5, Duration.ofHours(1)));
		for (int i = 0; i < 2; i++) {
			assertThat(limiter.tryAcquireAsync("several", limits, 1).get(5, TimeUnit.SECONDS))
				.allMatch(RateLimitDecision::allowed);
		}
		List<RateLimitDecision> refused = limiter.tryAcquireAsync("several", limits, 1).get(5, TimeUnit.SECONDS);
		assertThat(refused).extracting(RateLimitDecision::allowed).containsExactly(false, true);
		// the hourly limit was not charged by the refused call
		assertThat(refused.get(1).remaining()).isEqualTo(3);
	}

	@Test
	void holdsNoThreadWhileRedisIsPaused() throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		RedisRateLimiter limiter = limiter(Algorithm.GCRA, runner(redis.host(), redis.port(), Duration.ofSeconds(10)))
			.build();
		String key = "paused-" + UUID.randomUUID();
		assertThat(limiter.tryAcquireAsync(key, THREE_PER_MINUTE).get(5, TimeUnit.SECONDS).allowed()).isTrue();
		CompletableFuture<RateLimitDecision> pending;
		// Redis holds the answer back until the test has looked, however long the call took to return
		try (RedisTestServer.Pause pause = redis.pauseWrites(Duration.ofSeconds(60))) {
			pending = limiter.tryAcquireAsync(key, THREE_PER_MINUTE);
			// the call returned while Redis holds the answer back: no thread waits for it
			assertThat(pending).isNotDone();
		}
		RateLimitDecision decision = pending.get(10, TimeUnit.SECONDS);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(1);
	}

	@Test
	void completesExceptionallyWhenRedisRefusesConnections() {
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW,
				runner(RedisServerProcess.HOST, ClosedPort.reserve())).build();
		CompletableFuture<RateLimitDecision> decision = limiter.tryAcquireAsync("refused", THREE_PER_MINUTE);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> decision.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(RateLimiterUnavailableException.class);
	}

	@Test
	void completesExceptionallyWithinTheTimeoutWhenRedisAnswersNothing() {
		SilentServer silent = SilentServer.start();
		RedisRateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, runner(RedisServerProcess.HOST, silent.port()))
			.build();
		this.resources.add(silent);
		CompletableFuture<RateLimitDecision> decision = limiter.tryAcquireAsync("silent", THREE_PER_MINUTE);
		// the runner's 500 ms, and up to ten times that of patience with this JVM's stalls on a loaded machine; Lettuce
		// alone would wait for its command timeout (60 s)
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> decision.get(30, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(RateLimiterUnavailableException.class)
			.withCauseInstanceOf(QueryTimeoutException.class);
	}

	@Test
	void decidesWithTheFallbackAndStopsCallingRedisOnceTheBreakerOpens() throws Exception {
		Counting counting = new Counting(runner(RedisServerProcess.HOST, ClosedPort.reserve()));
		AtomicLong breakerClock = new AtomicLong();
		CircuitBreaker breaker = new CircuitBreaker("Redis", 2, Duration.ofSeconds(30), breakerClock::get);
		RedisRateLimiter limiter = limiter(Algorithm.SLIDING_WINDOW_LOG, counting).circuitBreaker(breaker)
			.fallback(new LocalRateLimiter(100))
			.build();
		List<RateLimitDecision> decisions = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			decisions.add(limiter.tryAcquireAsync("down", THREE_PER_MINUTE).get(5, TimeUnit.SECONDS));
		}
		assertThat(decisions).extracting(RateLimitDecision::allowed).containsExactly(true, true, true, false, false);
		assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(counting.calls).hasValue(2);
	}

	@Test
	void chargesPastTheLimitStopCallingRedisOnceTheBreakerOpens() {
		Counting counting = new Counting(runner(RedisServerProcess.HOST, ClosedPort.reserve()));
		AtomicLong breakerClock = new AtomicLong();
		CircuitBreaker breaker = new CircuitBreaker("Redis", 2, Duration.ofSeconds(30), breakerClock::get);
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, counting).circuitBreaker(breaker).build();
		for (int i = 0; i < 5; i++) {
			CompletableFuture<Void> charged = limiter.chargeAsync("down", List.of(THREE_PER_MINUTE), 1);
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> charged.get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(RateLimiterUnavailableException.class);
		}
		assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		// the charges the breaker let through were told to it; the others never reached Redis
		assertThat(counting.calls).hasValue(2);
	}

	@Test
	void throwsBadArgumentsAtOnce() {
		RedisTestServer redis = RedisTestServer.shared();
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, runner(redis.host(), redis.port())).build();
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireAsync("key", THREE_PER_MINUTE, 4))
			.withMessageContaining("permits");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireAsync(null, THREE_PER_MINUTE))
			.withMessageContaining("key");
	}

	@Test
	void refusesRememberedRejectionsWithoutCallingRedis() throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		Counting counting = new Counting(runner(redis.host(), redis.port()));
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, counting).denialCache(new LocalDenialCache(100))
			.build();
		for (int i = 0; i < 4; i++) {
			limiter.tryAcquireAsync("remembered", THREE_PER_MINUTE).get(5, TimeUnit.SECONDS);
		}
		assertThat(counting.calls).hasValue(4);
		for (int i = 0; i < 10; i++) {
			assertThat(limiter.tryAcquireAsync("remembered", THREE_PER_MINUTE).get(5, TimeUnit.SECONDS).allowed())
				.isFalse();
		}
		assertThat(counting.calls).hasValue(4);
	}

	@Test
	void waitsForAnotherCallersRedisCallWithoutHoldingAThread() throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		AtomicLong cacheNanos = new AtomicLong();
		Gated gated = new Gated(runner(redis.host(), redis.port()));
		// Redis's clock stands still, so the key stays refused there while the cache's clock runs past it
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, gated).clock(MutableClock.at("2026-05-05T05:05:05Z"))
			.denialCache(new LocalDenialCache(100, cacheNanos::get))
			.build();
		RateLimit onePerMinute = RateLimit.of(1, Duration.ofMinutes(1));
		assertThat(limiter.tryAcquireAsync("probe", onePerMinute).get(5, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(limiter.tryAcquireAsync("probe", onePerMinute).get(5, TimeUnit.SECONDS).allowed()).isFalse();
		cacheNanos.addAndGet(Duration.ofSeconds(61).toNanos());

		gated.hold();
		CompletableFuture<RateLimitDecision> probe = limiter.tryAcquireAsync("probe", onePerMinute);
		CompletableFuture<RateLimitDecision> waiting = limiter.tryAcquireAsync("probe", onePerMinute);
		assertThat(probe).isNotDone();
		assertThat(waiting).isNotDone();
		assertThat(gated.calls).hasValue(3);
		gated.release();
		assertThat(probe.get(5, TimeUnit.SECONDS).allowed()).isFalse();
		// answered from the probe's refusal, without a call of its own
		assertThat(waiting.get(5, TimeUnit.SECONDS).allowed()).isFalse();
		assertThat(gated.calls).hasValue(3);
	}

	@Test
	void decidesCallsOfSeveralLimitersTogether() throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		LettuceScriptRunner runner = runner(redis.host(), redis.port());
		String prefix = "together-" + UUID.randomUUID().toString().substring(0, 8);
		RedisRateLimiter fixed = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner).keyPrefix(prefix).build();
		RedisRateLimiter gcra = RedisRateLimiter.builder(Algorithm.GCRA, runner).keyPrefix(prefix).build();
		List<RedisRateLimiters.Call> calls = List.of(new RedisRateLimiters.Call(fixed, "a", List.of(THREE_PER_MINUTE), 1),
				new RedisRateLimiters.Call(gcra, "b", List.of(RateLimit.of(1, Duration.ofMinutes(1))), 1));
		assertThat(RedisRateLimiters.tryAcquireTogetherAsync(calls).get(5, TimeUnit.SECONDS)).hasSize(2)
			.allMatch((decisions) -> decisions.get(0).allowed());
		List<List<RateLimitDecision>> refused = RedisRateLimiters.tryAcquireTogetherAsync(calls).get(5, TimeUnit.SECONDS);
		assertThat(refused.get(refused.size() - 1).get(0).allowed()).isFalse();
		// the refusal of the second left the first uncharged
		assertThat(fixed.inspect("a", List.of(THREE_PER_MINUTE)).get(0).remaining()).isEqualTo(2);
	}

	@Test
	void answersACallMadeOnANettyEventLoopOnThatLoop() throws Exception {
		RedisTestServer redis = RedisTestServer.shared();
		DefaultEventLoop loop = new DefaultEventLoop();
		this.resources.add(() -> loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
		Thread loopThread = loop.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
		Gated gated = new Gated(runner(redis.host(), redis.port()));
		RedisRateLimiter limiter = limiter(Algorithm.GCRA, gated).build();
		List<Function<String, CompletableFuture<?>>> calls = List.of(
				(key) -> limiter.tryAcquireAsync(key, THREE_PER_MINUTE),
				(key) -> limiter.checkAsync(key, List.of(THREE_PER_MINUTE), 1),
				(key) -> limiter.inspectAsync(key, List.of(THREE_PER_MINUTE)),
				(key) -> RedisRateLimiters.tryAcquireTogetherAsync(
						List.of(new RedisRateLimiters.Call(limiter, key, List.of(THREE_PER_MINUTE), 1))));
		for (Function<String, CompletableFuture<?>> call : calls) {
			gated.hold();
			// made on the loop; Redis's answer is let through by this thread, as Lettuce's I/O thread would
			CompletableFuture<Thread> continuedOn = loop
				.submit(() -> call.apply("on-loop").thenApply((answer) -> Thread.currentThread()))
				.get(5, TimeUnit.SECONDS);
			assertThat(continuedOn).isNotDone();
			gated.release();
			assertThat(continuedOn.get(5, TimeUnit.SECONDS)).isSameAs(loopThread);
		}
	}

	private LettuceScriptRunner runner(String host, int port) {
		return runner(host, port, TIMEOUT);
	}

	private LettuceScriptRunner runner(String host, int port, Duration timeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		factory.afterPropertiesSet();
		factory.start();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, timeout);
		this.resources.add(runner);
		return runner;
	}

	private static RedisRateLimiter.Builder limiter(Algorithm algorithm, RedisScriptRunner runner) {
		return RedisRateLimiter.builder(algorithm, runner)
			.keyPrefix("async-" + UUID.randomUUID().toString().substring(0, 8));
	}

	/** Counts the asynchronous calls that reach the runner. */
	private static final class Counting implements RedisScriptRunner {

		final AtomicInteger calls = new AtomicInteger();

		private final RedisScriptRunner runner;

		Counting(RedisScriptRunner runner) {
			this.runner = runner;
		}

		@Override
		public List<?> run(RedisScript<List> script, List<String> keys, List<String> args) {
			throw new AssertionError("the asynchronous API must not make a blocking call");
		}

		@Override
		public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args) {
			this.calls.incrementAndGet();
			return this.runner.runAsync(script, keys, args);
		}

	}

	/** Holds Redis's answers back until the test releases them. */
	private static final class Gated implements RedisScriptRunner {

		final AtomicInteger calls = new AtomicInteger();

		private final RedisScriptRunner runner;

		private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

		Gated(RedisScriptRunner runner) {
			this.runner = runner;
		}

		void hold() {
			this.gate = new CompletableFuture<>();
		}

		void release() {
			this.gate.complete(null);
		}

		@Override
		public List<?> run(RedisScript<List> script, List<String> keys, List<String> args) {
			throw new AssertionError("the asynchronous API must not make a blocking call");
		}

		@Override
		public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args) {
			this.calls.incrementAndGet();
			return this.runner.runAsync(script, keys, args).thenCombine(this.gate, (reply, released) -> reply);
		}

		@Override
		public boolean takesKeysOfAnySlot() {
			return this.runner.takesKeysOfAnySlot();
		}

	}

}

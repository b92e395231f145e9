package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import io.lettuce.core.SocketOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.testsupport.SilentServer;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link LettuceScriptRunner} with batching on a real Redis: calls made while a command is in flight
 * travel together in one {@code EVALSHA}, and each is still decided, answered and failed on its own.
 */
class LettuceScriptRunnerBatchingTests {

	private static final int THREADS = 64;

	private static final int CALLS_PER_THREAD = 50;

	private static final int KEYS = 16;

	private static final long LIMIT = 150;

	/** Only if a test never ends its pause of Redis: each ends it once its calls are made or have failed. */
	private static final Duration PAUSE_AT_MOST = Duration.ofSeconds(60);

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
	void grantsExactlyTheLimitOfEveryKeyUnderConcurrencyInFarFewerScriptCalls(Algorithm algorithm)
			throws Exception {
		RedisRateLimiter limiter = limiter(algorithm, runner(Duration.ofSeconds(10)));
		RateLimit limit = RateLimit.of(LIMIT, Duration.ofMinutes(10));
		String prefix = UUID.randomUUID().toString();
		Map<String, AtomicLong> granted = new ConcurrentHashMap<>();
		long scriptsBefore = this.redis.scriptCalls();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int thread = t;
				done.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < CALLS_PER_THREAD; i++) {
						String key = prefix + ":" + ((thread + i) % KEYS);
						// half the threads wait for their decisions, half take them asynchronously
						RateLimitDecision decision = (thread % 2 == 0) ? limiter.tryAcquire(key, limit)
								: limiter.tryAcquireAsync(key, limit).get(10, TimeUnit.SECONDS);
						if (decision.allowed()) {
							granted.computeIfAbsent(key, (k) -> new AtomicLong()).incrementAndGet();
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		long decisions = (long) THREADS * CALLS_PER_THREAD;
		// 200 calls per key for a limit of 150: exactly 150 granted on every key
		assertThat(granted).hasSize(KEYS);
		assertThat(granted.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(LIMIT));
		// 64 callers and two commands in flight at a time: most calls travel in a batch
		assertThat(this.redis.scriptCalls() - scriptsBefore).isLessThan(decisions / 2);
	}

	@Test
	void answersEachCallOfABatchWithItsOwnReplyOrError() throws Exception {
		LettuceScriptRunner runner = runner(Duration.ofSeconds(10));
		String key = "batch-" + UUID.randomUUID();
		RedisScript<List> fixedWindow = RedisScripts.of(Algorithm.FIXED_WINDOW).script();
		List<String> tenPerMinute = List.of("", "1", "10", "60000000", "10");
		runner.run(fixedWindow, List.of(key + ":warm"), tenPerMinute);
		this.redis.template()
			.execute((RedisCallback<String>) (connection) -> connection.scriptingCommands()
				.scriptLoad(RedisScripts.BATCH.getScriptAsString().getBytes(StandardCharsets.UTF_8)));
		long scriptsBefore = this.redis.scriptCalls();
		List<CompletableFuture<List<?>>> first = new ArrayList<>();
		List<CompletableFuture<List<?>>> others = new ArrayList<>();
		CompletableFuture<List<?>> broken;
		// the first two calls wait in Redis until every call is made; the others wait for them, then go together
		try (RedisTestServer.Pause pause = this.redis.pauseWrites(PAUSE_AT_MOST)) {
			first.add(runner.runAsync(fixedWindow, List.of(key + ":a"), tenPerMinute));
			first.add(runner.runAsync(fixedWindow, List.of(key + ":a"), tenPerMinute));
			broken = runner.runAsync(fixedWindow, List.of(key + ":b"), List.of("", "1", "ten", "60000000", "10"));
			for (int i = 0; i < 3; i++) {
				others.add(runner.runAsync(fixedWindow, List.of(key + ":c"), tenPerMinute));
			}
			others.add(runner.runAsync(RedisScripts.of(Algorithm.GCRA).script(), List.of(key + ":d"), tenPerMinute));
		}
		assertThat(first.get(0).get(10, TimeUnit.SECONDS)).isEqualTo(List.of(1L, 9L, 0L, 60_000_000L));
		assertThat(first.get(1).get(10, TimeUnit.SECONDS).get(1)).isEqualTo(8L);
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> broken.get(10, TimeUnit.SECONDS))
			.havingRootCause()
			.isInstanceOf(RedisSystemException.class)
			.withMessageContaining("Redis answered the rate-limit script with an error");
		// each call of the batch was decided on its own, in order
		assertThat(others.get(0).get(10, TimeUnit.SECONDS).get(1)).isEqualTo(9L);
		assertThat(others.get(1).get(10, TimeUnit.SECONDS).get(1)).isEqualTo(8L);
		assertThat(others.get(2).get(10, TimeUnit.SECONDS).get(1)).isEqualTo(7L);
		assertThat(others.get(3).get(10, TimeUnit.SECONDS)).hasSize(4).first().isEqualTo(1L);
		// the first two calls alone, then one batch of five
		assertThat(this.redis.scriptCalls() - scriptsBefore).isEqualTo(3);
	}

	@Test
	void loadsTheBatchScriptWhenTheServerDoesNotKnowIt() throws Exception {
		LettuceScriptRunner runner = runner(Duration.ofSeconds(10));
		String key = "batch-noscript-" + UUID.randomUUID();
		RedisScript<List> tokenBucket = RedisScripts.of(Algorithm.TOKEN_BUCKET).script();
		List<String> fivePerMinute = List.of("", "1", "6", "60000000", "6");
		runner.run(tokenBucket, List.of(key + ":warm"), fivePerMinute);
		this.redis.template().execute((RedisCallback<Object>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		List<CompletableFuture<List<?>>> calls = new ArrayList<>();
		// two calls alone, then three in a batch
		try (RedisTestServer.Pause pause = this.redis.pauseWrites(PAUSE_AT_MOST)) {
			for (int i = 0; i < 5; i++) {
				calls.add(runner.runAsync(tokenBucket, List.of(key), fivePerMinute));
			}
		}
		List<Object> remaining = new ArrayList<>();
		for (CompletableFuture<List<?>> call : calls) {
			remaining.add(call.get(10, TimeUnit.SECONDS).get(1));
		}
		assertThat(remaining).containsExactly(5L, 4L, 3L, 2L, 1L);
	}

	@Test
	void aCallThatWaitsForABatchTimesOutOnItsOwnAndLaterCallsGoThrough() throws Exception {
		LettuceScriptRunner runner = runner(Duration.ofMillis(200));
		RedisRateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, runner);
		RateLimit limit = RateLimit.of(100, Duration.ofMinutes(1));
		String key = "batch-timeout-" + UUID.randomUUID();
		// a cold JVM may take longer than 200 ms to open the connection
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> limiter.tryAcquire(key, limit).allowed());
		// Redis answers nothing until every call has failed: one that waited for the batch before it would not fail
		// until then, whatever the machine's speed
		try (RedisTestServer.Pause pause = this.redis.pauseWrites(PAUSE_AT_MOST)) {
			List<CompletableFuture<List<?>>> waiting = IntStream.range(0, 3)
				.mapToObj((i) -> runner.runAsync(RedisScripts.of(Algorithm.FIXED_WINDOW).script(), List.of(key + ":x"),
						List.of("", "1", "10", "60000000", "10")))
				.toList();
			long started = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> runner.run(RedisScripts.of(Algorithm.FIXED_WINDOW).script(), List.of(key + ":y"),
						List.of("", "1", "10", "60000000", "10")));
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(PAUSE_AT_MOST);
			for (CompletableFuture<List<?>> call : waiting) {
				assertThatExceptionOfType(Exception.class).isThrownBy(() -> call.get(PAUSE_AT_MOST.toSeconds(), TimeUnit.SECONDS))
					.havingRootCause()
					.isInstanceOf(QueryTimeoutException.class);
			}
		}
		// once Redis answers again, so does the runner
		await()
			.atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> limiter.tryAcquire(key, limit).allowed());
	}

	@Test
	void givesUpWithinItsTimeoutWhenRedisAnswersNothingWhetherCallsWaitOrNot() throws Exception {
		SilentServer silent = SilentServer.start();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServerProcess.HOST, silent.port()));
		factory.afterPropertiesSet();
		factory.start();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofMillis(200), true);
		this.resources.add(runner);
		// closed first: the client's handshake then fails at once instead of waiting out its own timeout
		this.resources.add(silent);
		RedisScript<List> script = RedisScripts.of(Algorithm.FIXED_WINDOW).script();
		List<String> args = List.of("", "1", "10", "60000000", "10");
		for (int round = 0; round < 3; round++) {
			long started = System.nanoTime();
			// two go out, the others wait for them: every one gives up after its own timeout
			List<CompletableFuture<List<?>>> calls = IntStream.range(0, 6)
				.mapToObj((i) -> runner.runAsync(script, List.of("silent"), args))
				.toList();
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> runner.run(script, List.of("silent"), args));
			for (CompletableFuture<List<?>> call : calls) {
				assertThatExceptionOfType(Exception.class).isThrownBy(() -> call.get(5, TimeUnit.SECONDS))
					.havingRootCause()
					.isInstanceOf(QueryTimeoutException.class);
			}
			// Lettuce alone would wait for its connect timeout (10 s), then its command timeout (60 s); the runner
			// gives up after its 200 ms, stretched by its patience with this JVM's stalls on a loaded machine
			assertThat(Duration.ofNanos(System.nanoTime() - started))
				.isLessThan(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION);
		}
	}

	private LettuceScriptRunner runner(Duration timeout) {
		LettuceConnectionFactory factory = this.redis.newConnectionFactory();
		this.resources.add(factory::destroy);
		LettuceScriptRunner runner = new LettuceScriptRunner(factory, timeout, true);
		runner.start();
		this.resources.add(runner);
		return runner;
	}

	private static RedisRateLimiter limiter(Algorithm algorithm, RedisScriptRunner runner) {
		return RedisRateLimiter.builder(algorithm, runner)
			.keyPrefix("batching-" + UUID.randomUUID().toString().substring(0, 8))
			.build();
	}

}

package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.ClosedPort;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Behaviour both Redis limiters share, each run against a real Redis.
 */
class RedisRateLimitersTests {

	private static final StringRedisTemplate redis = RedisTestServer.shared().template();

	private static final int THREADS = 50;

	/** Keys of this run only, even on a Redis that other runs share. */
	private static final String PREFIX = "test-" + UUID.randomUUID().toString().substring(0, 8);

	private static ExecutorService pool;

	@BeforeAll
	static void startPool() {
		pool = Executors.newFixedThreadPool(THREADS);
	}

	@AfterAll
	static void stopPool() {
		pool.shutdownNow();
	}

	static Stream<Arguments> limiters() {
		return Stream.concat(windowLimiters(),
				Stream.of(limiter("token bucket", (template, clock) -> new TokenBucketRateLimiter(template, PREFIX, clock)),
						limiter("gcra", (template, clock) -> new GcraRateLimiter(template, PREFIX, clock))));
	}

	/** The algorithms that count permits per window, where a lowered limit leaves a key over it. */
	static Stream<Arguments> windowLimiters() {
		return Stream.of(limiter("fixed window", (template, clock) -> new FixedWindowRateLimiter(template, PREFIX, clock)),
				limiter("sliding window log", (template, clock) -> new SlidingWindowRateLimiter(template, PREFIX, clock)),
				limiter("sliding window counter",
						(template, clock) -> new SlidingWindowCounterRateLimiter(template, PREFIX, clock)));
	}

	private static Arguments limiter(String name, BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		return Arguments.of(Named.of(name, factory));
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void allowsExactlyTheLimitToFiftyThreadsReleasedTogether(
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) throws Exception {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1));
		for (int round = 0; round < 20; round++) {
			assertThat(allowedCount(limiter, "burst-" + UUID.randomUUID(), limit)).as("round %d", round)
				.isEqualTo(10);
		}
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void allowsExactlyTheLimitWhenEveryCallCarriesTheSameTimestamp(
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) throws Exception {
		Clock frozen = Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), java.time.ZoneOffset.UTC);
		AlgorithmRateLimiter limiter = factory.apply(redis, frozen);
		for (int round = 0; round < 20; round++) {
			assertThat(allowedCount(limiter, "same-instant-" + UUID.randomUUID(), RateLimit.of(10, Duration.ofSeconds(1))))
				.as("round %d", round)
				.isEqualTo(10);
		}
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void givesEveryKeyItWritesATtlAndRepairsAKeyFoundWithout(
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		String key = "ttl-" + UUID.randomUUID();
		RateLimit limit = RateLimit.of(2, Duration.ofSeconds(30));
		String redisKey = limiter.redisKey(key);
		// no longer than the key needs to drain back to full: a window, two for the counter
		limiter.tryAcquire(key, limit);
		assertThat(redis.getExpire(redisKey, TimeUnit.MILLISECONDS)).isBetween(1L, 60_000L);
		limiter.tryAcquire(key, limit);
		redis.persist(redisKey);
		assertThat(redis.getExpire(redisKey)).isEqualTo(-1);
		assertThat(limiter.tryAcquire(key, limit).allowed()).isFalse();
		assertThat(redis.getExpire(redisKey, TimeUnit.MILLISECONDS)).isBetween(1L, 60_000L);
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void readsTheTimeFromTheRedisServerByDefault(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		String key = "time-" + UUID.randomUUID();
		RateLimit limit = RateLimit.of(1, Duration.ofHours(1));
		// the slow log records every command with its arguments: the script must be sent no time of ours
		RedisClient client = RedisClient.create(RedisTestServer.shared().url());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			RedisCommands<String, String> commands = connection.sync();
			String threshold = commands.configGet("slowlog-log-slower-than").get("slowlog-log-slower-than");
			commands.configSet("slowlog-log-slower-than", "0");
			try {
				commands.slowlogReset();
				assertThat(factory.apply(redis, null).tryAcquire(key, limit).allowed()).isTrue();
				List<String> scriptCall = commands.slowlogGet(128)
					.stream()
					.map((entry) -> arguments((List<?>) entry))
					.filter((arguments) -> arguments.get(0).toUpperCase(Locale.ROOT).startsWith("EVAL"))
					.findFirst()
					.orElseThrow();
				// EVALSHA sha numkeys key now limit window permits
				assertThat(scriptCall.get(0)).isEqualToIgnoringCase("EVALSHA");
				assertThat(scriptCall.get(3)).isEqualTo(factory.apply(redis, null).redisKey(key));
				assertThat(scriptCall.get(4)).isEmpty();
				assertThat(scriptCall.get(5)).isEqualTo("1");
			}
			finally {
				commands.configSet("slowlog-log-slower-than", threshold);
			}
		}
		finally {
			client.shutdown();
		}
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void sendsTheTimeOfAGivenClock(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		String key = "clock-" + UUID.randomUUID();
		RateLimit limit = RateLimit.of(1, Duration.ofHours(1));
		// an instance whose clock is a day behind takes the only permit for what it thinks is its hour
		Clock dayBehind = Clock.offset(Clock.systemUTC(), Duration.ofDays(-1));
		assertThat(factory.apply(redis, dayBehind).tryAcquire(key, limit).allowed()).isTrue();
		assertThat(factory.apply(redis, dayBehind).tryAcquire(key, limit).allowed()).isFalse();
		// on the server's time that permit lies a day ago
		assertThat(factory.apply(redis, null).tryAcquire(key, limit).allowed()).isTrue();
	}

	@ParameterizedTest
	@MethodSource("windowLimiters")
	void rejectsWithNoRemainingWhenTheKeyWasFilledUnderALargerLimit(
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		String key = "lowered-" + UUID.randomUUID();
		for (int i = 0; i < 50; i++) {
			limiter.tryAcquire(key, RateLimit.of(100, Duration.ofMinutes(1)));
		}
		RateLimitDecision decision = limiter.tryAcquire(key, RateLimit.of(10, Duration.ofMinutes(1)));
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.remaining()).isZero();
		assertThat(decision.retryAfter()).isPositive();
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void replacesAKeyOfAnotherTypeSuchAsTheSeedsCounter(
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		String key = "seed-" + UUID.randomUUID();
		redis.opsForValue().set(limiter.redisKey(key), "5");
		RateLimitDecision decision = limiter.tryAcquire(key, RateLimit.of(3, Duration.ofMinutes(1)));
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(2);
		assertThat(redis.getExpire(limiter.redisKey(key))).isPositive();
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void givesRejectionsAPositiveRetryAfterWithinTheWindow(
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		String key = "retry-" + UUID.randomUUID();
		RateLimit limit = RateLimit.of(3, Duration.ofSeconds(10));
		List<Long> remaining = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			remaining.add(limiter.tryAcquire(key, limit).remaining());
		}
		assertThat(remaining).containsExactly(2L, 1L, 0L);
		RateLimitDecision rejected = limiter.tryAcquire(key, limit);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.remaining()).isZero();
		// the counter may have to wait into the next window, while its count is the previous one
		Duration longest = (limiter.algorithm() == Algorithm.SLIDING_WINDOW_COUNTER) ? Duration.ofSeconds(20)
				: Duration.ofSeconds(10);
		assertThat(rejected.retryAfter()).isPositive().isLessThanOrEqualTo(longest);
		assertThat(rejected.resetAfter()).isGreaterThanOrEqualTo(rejected.retryAfter());
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void givesAnyClientIdItsOwnBoundedKey(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		String unique = UUID.randomUUID().toString();
		List<String> ids = List.of("with space " + unique, "{brace}" + unique, "*" + unique, "line\nbreak" + unique,
				"ünïcødé ✓ " + unique, "x".repeat(10_000) + unique, "y".repeat(10_000) + unique, "",
				"~" + unique, unique);
		RateLimit limit = RateLimit.of(1, Duration.ofMinutes(1));
		Set<String> keys = new HashSet<>();
		for (String id : ids) {
			redis.delete(limiter.redisKey(id));
			assertThat(limiter.tryAcquire(id, limit).allowed()).as("first call of %s", id).isTrue();
			assertThat(limiter.tryAcquire(id, limit).allowed()).as("second call of %s", id).isFalse();
			String redisKey = limiter.redisKey(id);
			assertThat(redisKey.length()).isLessThanOrEqualTo(150);
			assertThat(redisKey).doesNotContain("{", "}", "*", "\n");
			assertThat(redis.hasKey(redisKey)).isTrue();
			keys.add(redisKey);
		}
		assertThat(keys).hasSameSizeAs(ids);
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void rejectsBadArgumentsBeforeCallingRedis(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		// a template whose Redis is unreachable: an argument checked after a Redis call would surface as a
		// connection error instead
		LettuceConnectionFactory unreachable = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServerProcess.HOST, ClosedPort.reserve()));
		unreachable.afterPropertiesSet();
		StringRedisTemplate template = new StringRedisTemplate(unreachable);
		try {
			AlgorithmRateLimiter limiter = factory.apply(template, null);
			RateLimit limit = RateLimit.of(3, Duration.ofSeconds(1));
			assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire(null, limit))
				.withMessageContaining("key");
			assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", null))
				.withMessageContaining("limit");
			assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", limit, 0))
				.withMessageContaining("permits must be at least 1");
			assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", limit, 4))
				.withMessageMatching("permits must not exceed the (limit|burst) of 3, but was 4");
			if (limiter.algorithm().acceptsBurst()) {
				assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", limit.withBurst(5), 6))
					.withMessage("permits must not exceed the burst of 5, but was 6");
			}
			else {
				assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", limit.withBurst(5)))
					.withMessageContaining("burst applies to the token bucket and GCRA only");
			}
			if (limiter.algorithm() == Algorithm.SLIDING_WINDOW_COUNTER) {
				// a million per day: limit × window in µs is past 2^53, where the scripts' integers stop being exact
				assertThatIllegalArgumentException()
					.isThrownBy(() -> limiter.tryAcquire("k", RateLimit.of(1_000_000, Duration.ofDays(1))))
					.withMessageContaining("must stay below 2^53");
			}
			if (limiter.algorithm().acceptsBurst()) {
				// the token bucket and GCRA count in the rate, a million a day as 5 per 432 ms; a prime limit of that
				// size has no common factor with the window to divide by
				assertThatIllegalArgumentException()
					.isThrownBy(() -> limiter.tryAcquire("k", RateLimit.of(1_000_003, Duration.ofDays(1))))
					.withMessageContaining("must stay below 2^53");
			}
			assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(3, Duration.ofSeconds(1)).withBurst(0))
				.withMessage("burst must be at least 1, but was 0");
			assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(0, Duration.ofSeconds(1)))
				.withMessageContaining("limit must be at least 1");
			assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(Long.MAX_VALUE, Duration.ofSeconds(1)))
				.withMessageContaining("limit must be at most 2^53");
			assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(1, Duration.ZERO))
				.withMessageContaining("window must be at least 1ms");
			assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(1, Duration.ofSeconds(-1)))
				.withMessageContaining("window");
			assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(1, null))
				.withMessageContaining("window must not be null");
		}
		finally {
			unreachable.destroy();
		}
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void grantsTheRejectedCallExactlyAtItsRetryAfter(
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		// an odd instant and window, so that nothing lines up with a whole second by chance
		MutableClock clock = MutableClock.at("2026-05-05T10:11:12.345678Z");
		AlgorithmRateLimiter limiter = factory.apply(redis, clock);
		String key = "exact-" + UUID.randomUUID();
		RateLimit limit = RateLimit.of(3, Duration.ofMillis(1_001));
		for (int round = 0; round < 5; round++) {
			RateLimitDecision decision = limiter.tryAcquire(key, limit);
			while (decision.allowed()) {
				clock.advance(Duration.ofNanos(137_000));
				decision = limiter.tryAcquire(key, limit);
			}
			Duration retryAfter = decision.retryAfter();
			clock.advance(retryAfter.minusNanos(1_000));
			assertThat(limiter.tryAcquire(key, limit).allowed()).as("1µs before retryAfter, round %d", round).isFalse();
			clock.advance(Duration.ofNanos(1_000));
			assertThat(limiter.tryAcquire(key, limit).allowed()).as("at retryAfter, round %d", round).isTrue();
		}
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void chargesSeveralLimitsAllOrNothing(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
		AlgorithmRateLimiter limiter = factory.apply(redis, clock);
		String key = "multi-" + UUID.randomUUID();
		List<RateLimit> limits = List.of(RateLimit.of(10, Duration.ofSeconds(1)), RateLimit.of(15, Duration.ofMinutes(1)));
		for (int i = 0; i < 10; i++) {
			assertThat(limiter.tryAcquire(key, limits, 1)).allMatch(RateLimitDecision::allowed);
		}
		for (int i = 0; i < 5; i++) {
			List<RateLimitDecision> refused = limiter.tryAcquire(key, limits, 1);
			assertThat(refused.get(0).allowed()).isFalse();
			// the per-minute limit admits the call but is not charged for it
			assertThat(refused.get(1).allowed()).isTrue();
			assertThat(refused.get(1).remaining()).isEqualTo(5);
		}
		clock.advance(Duration.ofSeconds(2));
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.tryAcquire(key, limits, 1)).allMatch(RateLimitDecision::allowed);
		}
		for (int i = 0; i < 5; i++) {
			List<RateLimitDecision> refused = limiter.tryAcquire(key, limits, 1);
			assertThat(refused.get(1).allowed()).isFalse();
			assertThat(refused.get(1).retryAfter()).isPositive();
			assertThat(refused.get(0).allowed()).isTrue();
			assertThat(refused.get(0).remaining()).isEqualTo(5);
		}
		// one slot, whichever shard it lands on: every key carries the same hash tag
		assertThat(redis.keys(PREFIX + ":*{" + key + "}*")).hasSize(2);
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void refusesLimitsItCannotCombine(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> limiter.tryAcquire("k",
					List.of(RateLimit.of(1, Duration.ofSeconds(1)), RateLimit.of(5, Duration.ofSeconds(1))), 1))
			.withMessageContaining("limits must have distinct windows");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", List.of(), 1))
			.withMessageContaining("limits must hold at least one limit");
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void readsAKeysStateWithoutTakingAnything(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		MutableClock clock = MutableClock.at("2026-06-06T06:06:06Z");
		AlgorithmRateLimiter limiter = factory.apply(redis, clock);
		String key = "inspect-" + UUID.randomUUID();
		List<RateLimit> limits = List.of(RateLimit.of(5, Duration.ofSeconds(10)));
		RateLimitDecision fresh = limiter.inspect(key, limits).get(0);
		assertThat(fresh.allowed()).isTrue();
		assertThat(fresh.remaining()).isEqualTo(5);
		assertThat(redis.hasKey(limiter.redisKey(key))).isFalse();
		for (int i = 0; i < 3; i++) {
			limiter.tryAcquire(key, limits, 1);
		}
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.inspect(key, limits).get(0).remaining()).isEqualTo(2);
		}
		limiter.tryAcquire(key, limits, 2);
		RateLimitDecision exhausted = limiter.inspect(key, limits).get(0);
		assertThat(exhausted.allowed()).isFalse();
		assertThat(exhausted.remaining()).isZero();
		RateLimitDecision refused = limiter.tryAcquire(key, limits, 1).get(0);
		assertThat(exhausted.retryAfter()).isEqualTo(refused.retryAfter());
		assertThat(exhausted.resetAfter()).isEqualTo(refused.resetAfter());
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void neverGrantsMoreWhenTheClockStepsBack(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		// the start of a minute, so that the counter's windows line up
		MutableClock clock = MutableClock.at("2026-08-08T08:08:00Z");
		AlgorithmRateLimiter limiter = factory.apply(redis, clock);
		String key = "step-back-" + UUID.randomUUID();
		RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1));
		clock.advance(Duration.ofSeconds(61));
		int granted = 0;
		for (int i = 0; i < 5; i++) {
			granted += limiter.tryAcquire(key, limit).allowed() ? 1 : 0;
		}
		// an NTP step, or a failover to a replica whose clock lags, moves time back across a boundary
		clock.advance(Duration.ofSeconds(-2));
		granted += limiter.tryAcquire(key, limit).allowed() ? 1 : 0;
		// four seconds after the first calls: the smooth algorithms have refilled two thirds of a permit
		clock.advance(Duration.ofSeconds(6));
		for (int i = 0; i < 20; i++) {
			granted += limiter.tryAcquire(key, limit).allowed() ? 1 : 0;
		}
		assertThat(granted).isEqualTo(10);
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void writesNothingWhenReadingAKeysState(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		MutableClock clock = MutableClock.at("2026-09-09T09:09:09Z");
		AlgorithmRateLimiter limiter = factory.apply(redis, clock);
		String key = "read-only-" + UUID.randomUUID();
		List<RateLimit> limits = List.of(RateLimit.of(5, Duration.ofSeconds(10)));
		limiter.tryAcquire(key, limits, 3);
		clock.advance(Duration.ofSeconds(30));
		String redisKey = limiter.redisKey(key);
		redis.persist(redisKey);
		Map<String, String> before = dump(redisKey);
		limiter.inspect(key, limits);
		assertThat(dump(redisKey)).isEqualTo(before);
		assertThat(redis.getExpire(redisKey)).isEqualTo(-1);
	}

	private static Map<String, String> dump(String key) {
		return switch (redis.type(key).code()) {
			case "hash" -> redis.<String, String>opsForHash().entries(key);
			case "zset" -> Map.of("members", String.valueOf(redis.opsForZSet().rangeWithScores(key, 0, -1)));
			case "string" -> Map.of("value", String.valueOf(redis.opsForValue().get(key)));
			default -> Map.of("type", redis.type(key).code());
		};
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void putsAKeyBackToFullOnReset(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		String key = "reset-" + UUID.randomUUID();
		List<RateLimit> limits = List.of(RateLimit.of(2, Duration.ofMinutes(1)), RateLimit.of(3, Duration.ofHours(1)));
		limiter.tryAcquire(key, limits, 2);
		assertThat(limiter.tryAcquire(key, limits, 1).get(0).allowed()).isFalse();
		assertThat(limiter.reset(key, limits)).isEqualTo(2);
		assertThat(limiter.tryAcquire(key, limits, 1)).allMatch(RateLimitDecision::allowed);
		assertThat(limiter.reset("never-used-" + key, limits)).isZero();
	}

	private static List<String> arguments(List<?> slowlogEntry) {
		// an entry is id, time, duration, arguments, ...
		return ((List<?>) slowlogEntry.get(3)).stream().map(String::valueOf).toList();
	}

	private static long allowedCount(AlgorithmRateLimiter limiter, String key, RateLimit limit) throws Exception {
		CountDownLatch ready = new CountDownLatch(THREADS);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<Boolean>> results = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			results.add(pool.submit(() -> {
				ready.countDown();
				start.await();
				return limiter.tryAcquire(key, limit).allowed();
			}));
		}
		ready.await();
		start.countDown();
		long allowed = 0;
		for (Future<Boolean> result : results) {
			if (result.get(30, TimeUnit.SECONDS)) {
				allowed++;
			}
		}
		return allowed;
	}

}

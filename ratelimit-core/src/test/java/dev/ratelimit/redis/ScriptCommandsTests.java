package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
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

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the scripts ask of Redis, counted with {@code INFO commandstats} (which counts the commands a
 * script runs): the commands of a decision, no {@code TIME} where the caller gives the time, and no
 * write for a refused call ({@code rdb_changes_since_last_save}, Redis's count of writes, stays put).
 * The test Redis is the test run's own, and test classes run one at a time.
 */
class ScriptCommandsTests {

	private static final StringRedisTemplate redis = RedisTestServer.shared().template();

	private static final Set<String> WRITES = Set.of("hset", "hincrby", "set", "zadd", "pexpire", "del", "hdel");

	private static RedisClient client;

	private static StatefulRedisConnection<String, String> connection;

	private static RedisCommands<String, String> admin;

	@BeforeAll
	static void connect() {
		client = RedisClient.create(RedisTestServer.shared().url());
		connection = client.connect();
		admin = connection.sync();
	}

	@AfterAll
	static void disconnect() {
		connection.close();
		client.shutdown();
	}

	static Stream<Arguments> grantedCallsOnTheServersClock() {
		return Stream.of(
				arguments("fixed window", (template, clock) -> new FixedWindowRateLimiter(template, "rate", clock),
						Map.of("hmget", 1L, "pttl", 1L, "hincrby", 1L)),
				arguments("sliding window log", (template, clock) -> new SlidingWindowRateLimiter(template, "rate", clock),
						Map.of("time", 1L, "zremrangebyscore", 1L, "zcard", 1L, "zadd", 1L, "zcount", 1L, "pexpire", 1L)),
				arguments("sliding window counter",
						(template, clock) -> new SlidingWindowCounterRateLimiter(template, "rate", clock),
						Map.of("time", 1L, "hmget", 1L, "hincrby", 1L)),
				arguments("token bucket", (template, clock) -> new TokenBucketRateLimiter(template, "rate", clock),
						Map.of("time", 1L, "get", 1L, "set", 1L)),
				arguments("gcra", (template, clock) -> new GcraRateLimiter(template, "rate", clock),
						Map.of("time", 1L, "get", 1L, "set", 1L)));
	}

	static Stream<Arguments> limiters() {
		return grantedCallsOnTheServersClock().map((arguments) -> Arguments.of(arguments.get()[0]));
	}

	private static Arguments arguments(String name,
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory, Map<String, Long> commands) {
		return Arguments.of(Named.of(name, factory), commands);
	}

	@ParameterizedTest
	@MethodSource("grantedCallsOnTheServersClock")
	void grantsACallOnAKeyInUseWithTheseCommands(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory,
			Map<String, Long> expected) {
		AlgorithmRateLimiter limiter = factory.apply(redis, null);
		String key = "commands-" + UUID.randomUUID();
		// the benchmarks' allowed path: a key in use, a limit far from reached
		RateLimit limit = RateLimit.of(10_000, Duration.ofHours(1));
		assertThat(limiter.tryAcquire(key, limit).allowed()).isTrue();
		Map<String, Long> commands = commandsOf(() -> assertThat(limiter.tryAcquire(key, limit).allowed()).isTrue());
		assertThat(commands.remove("evalsha")).isEqualTo(1);
		assertThat(commands).isEqualTo(expected);
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void neverReadsTheServersTimeWhenTheCallerGivesIt(
			BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		MutableClock clock = MutableClock.at("2026-04-04T04:04:04.040404Z");
		AlgorithmRateLimiter limiter = factory.apply(redis, clock);
		String key = "given-time-" + UUID.randomUUID();
		List<RateLimit> limits = List.of(RateLimit.of(3, Duration.ofSeconds(10)), RateLimit.of(5, Duration.ofMinutes(1)));
		Map<String, Long> commands = commandsOf(() -> {
			for (int i = 0; i < 8; i++) {
				limiter.tryAcquire(key, limits, 1);
				limiter.inspect(key, limits);
				limiter.tryAcquire(key, limits.subList(0, 1), 1);
				clock.advance(Duration.ofSeconds(3));
			}
		});
		assertThat(commands.get("evalsha")).isGreaterThanOrEqualTo(8 * 3);
		assertThat(commands).doesNotContainKey("time");
	}

	@ParameterizedTest
	@MethodSource("limiters")
	void writesNothingForARefusedCall(BiFunction<StringRedisTemplate, Clock, AlgorithmRateLimiter> factory) {
		for (Clock clock : new Clock[] { null, MutableClock.at("2026-05-05T05:05:05Z") }) {
			AlgorithmRateLimiter limiter = factory.apply(redis, clock);
			String key = "refused-" + UUID.randomUUID();
			List<RateLimit> limits = List.of(RateLimit.of(2, Duration.ofMinutes(1)), RateLimit.of(100, Duration.ofHours(1)));
			assertThat(limiter.tryAcquire(key, limits, 2)).allMatch(RateLimitDecision::allowed);
			assertThat(limiter.tryAcquire(key, limits.subList(0, 1), 2).get(0).allowed()).isTrue();
			String lastSaveBefore = lastSave();
			long writesBefore = writes();
			Map<String, Long> commands = commandsOf(() -> {
				for (int i = 0; i < 5; i++) {
					List<RateLimitDecision> refused = limiter.tryAcquire(key, limits, 1);
					assertThat(refused.get(0).allowed()).isFalse();
					// the hourly limit admits the call but is not charged, nor written, for it
					assertThat(refused.get(1).allowed()).isTrue();
					assertThat(refused.get(1).remaining()).isEqualTo(98);
					assertThat(limiter.tryAcquire(key, limits.subList(0, 1), 2).get(0).allowed()).isFalse();
				}
			});
			if (!lastSave().equals(lastSaveBefore)) {
				// a Redis that saves (one given through RATELIMIT_TEST_REDIS_URL) restarted its count meanwhile
				writesBefore = 0;
			}
			assertThat(writes()).as("writes by refused calls (clock %s)", clock).isEqualTo(writesBefore);
			assertThat(commands.keySet()).as("clock %s", clock).doesNotContainAnyElementsOf(WRITES);
		}
	}

	/** Runs {@code calls} and returns the commands Redis ran meanwhile, {@code INFO} and the reset left out. */
	private static Map<String, Long> commandsOf(Runnable calls) {
		admin.configResetstat();
		calls.run();
		Map<String, Long> commands = new LinkedHashMap<>();
		for (String line : admin.info("commandstats").split("\r\n")) {
			if (line.startsWith("cmdstat_")) {
				String command = line.substring("cmdstat_".length(), line.indexOf(':'));
				long count = Long.parseLong(line.replaceFirst(".*[:,]calls=(\\d+).*", "$1"));
				if (!command.startsWith("info") && !command.startsWith("config")) {
					commands.put(command, count);
				}
			}
		}
		return commands;
	}

	/** Redis's count of writes since the last save (the servers the tests start never save). */
	private static long writes() {
		return Long.parseLong(persistence("rdb_changes_since_last_save"));
	}

	private static String lastSave() {
		return persistence("rdb_last_save_time");
	}

	private static String persistence(String field) {
		for (String line : admin.info("persistence").split("\r\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(line.indexOf(':') + 1).trim();
			}
		}
		throw new IllegalStateException("INFO persistence has no " + field);
	}

}

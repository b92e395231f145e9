package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.redis.RedisRateLimiters.Call;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several calls, of any algorithms, decided all or nothing in one round trip: when the second would be
 * refused, the first is not charged.
 */
class RedisRateLimitersTogetherTests {

	private static final LettuceConnectionFactory factory = RedisTestServer.shared().newConnectionFactory();

	// generous: this is about what is charged, not how fast, and the machine may be busy
	private static final LettuceScriptRunner runner = started(new LettuceScriptRunner(factory, Duration.ofSeconds(10)));

	private final String prefix = "together-" + UUID.randomUUID().toString().substring(0, 8);

	@AfterAll
	static void close() {
		runner.close();
		factory.destroy();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void chargesNothingWhenTheSecondCallIsRefused(Algorithm algorithm) {
		RedisRateLimiter limiter = RedisRateLimiter.builder(algorithm, runner).keyPrefix(this.prefix).build();
		RateLimit wide = RateLimit.of(5, Duration.ofMinutes(1));
		RateLimit narrow = RateLimit.of(1, Duration.ofMinutes(1));
		List<Call> calls = List.of(new Call(limiter, "wide", List.of(wide), 1),
				new Call(limiter, "narrow", List.of(narrow), 1));
		// the server learns the script first (NOSCRIPT, then EVAL), so that each decision below is one EVALSHA
		RedisRateLimiters.tryAcquireTogether(List.of(new Call(limiter, "warm-up", List.of(wide), 1)));
		long before = RedisTestServer.shared().scriptCalls();
		List<List<RateLimitDecision>> granted = RedisRateLimiters.tryAcquireTogether(calls);
		assertThat(granted).hasSize(2);
		assertThat(granted.get(0).get(0).remaining()).isEqualTo(4);
		assertThat(granted.get(1).get(0).remaining()).isZero();
		List<List<RateLimitDecision>> refused = RedisRateLimiters.tryAcquireTogether(calls);
		assertThat(refused).hasSize(2);
		assertThat(refused.get(0).get(0).allowed()).isTrue();
		assertThat(refused.get(1).get(0).allowed()).isFalse();
		assertThat(refused.get(1).get(0).retryAfter()).isPositive();
		// one script call per decision of both, and the wide budget kept what the refused request would have taken
		assertThat(RedisTestServer.shared().scriptCalls() - before).isEqualTo(2);
		assertThat(limiter.inspect("wide", List.of(wide)).get(0).remaining()).isEqualTo(4);
		assertThat(limiter.inspect("narrow", List.of(narrow)).get(0).remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void chargesNothingOfAMultiLimitCallWhenAnotherAlgorithmRefuses(Algorithm algorithm) {
		RedisRateLimiter multi = RedisRateLimiter.builder(algorithm, runner).keyPrefix(this.prefix).build();
		RedisRateLimiter gcra = RedisRateLimiter.builder(Algorithm.GCRA, runner).keyPrefix(this.prefix).build();
		List<RateLimit> limits = List.of(RateLimit.of(3, Duration.ofSeconds(10)), RateLimit.of(10, Duration.ofHours(1)));
		RateLimit one = RateLimit.of(1, Duration.ofMinutes(1));
		List<Call> calls = List.of(new Call(multi, "multi", limits, 1), new Call(gcra, "one", List.of(one), 1));
		assertThat(RedisRateLimiters.tryAcquireTogether(calls)).hasSize(2);
		List<List<RateLimitDecision>> refused = RedisRateLimiters.tryAcquireTogether(calls);
		assertThat(refused.get(1).get(0).allowed()).isFalse();
		List<RateLimitDecision> state = multi.inspect("multi", limits);
		assertThat(state).extracting(RateLimitDecision::remaining).containsExactly(2L, 9L);
	}

	@Test
	void stopsAtTheFirstRefusedCall() {
		RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner).keyPrefix(this.prefix).build();
		RateLimit one = RateLimit.of(1, Duration.ofMinutes(1));
		limiter.tryAcquire("spent", one);
		List<List<RateLimitDecision>> answered = RedisRateLimiters.tryAcquireTogether(
				List.of(new Call(limiter, "spent", List.of(one), 1), new Call(limiter, "fresh", List.of(one), 1)));
		assertThat(answered).hasSize(1);
		assertThat(answered.get(0).get(0).allowed()).isFalse();
		assertThat(limiter.inspect("fresh", List.of(one)).get(0).remaining()).isEqualTo(1);
		assertThat(RedisRateLimiters.canDecideTogether(List.of(limiter, limiter))).isTrue();
		RedisRateLimiter templated = RedisRateLimiter.builder(Algorithm.GCRA, RedisTestServer.shared().template()).build();
		assertThat(RedisRateLimiters.canDecideTogether(List.of(limiter, templated))).isFalse();
	}

	private static LettuceScriptRunner started(LettuceScriptRunner runner) {
		runner.start();
		return runner;
	}

}

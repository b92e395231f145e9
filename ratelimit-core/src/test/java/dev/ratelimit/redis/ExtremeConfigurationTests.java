package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.InvalidRateLimitException;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The largest figures a limit accepts decide exactly on a healthy Redis, with the server's time and with
 * a given one: no configuration that passes the checks can make a decision fail, and what would
 * overflow anywhere is refused up front.
 */
class ExtremeConfigurationTests {

	private final String prefix = "extreme-" + UUID.randomUUID().toString().substring(0, 8);

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void decidesTheLargestAcceptedLimitsAndWindows(Algorithm algorithm) {
		for (boolean serverTime : new boolean[] { true, false }) {
			RateLimiter limiter = RedisRateLimiter.builder(algorithm, RedisTestServer.shared().template())
				.keyPrefix(this.prefix)
				.clock(serverTime ? null : MutableClock.at("2126-01-01T00:00:00Z"))
				.build();
			for (RateLimit limit : extremes(algorithm)) {
				String key = "k-" + serverTime + "-" + limit.limit() + "-" + limit.windowLabel();
				RateLimitDecision first = limiter.tryAcquire(key, limit);
				assertThat(first.allowed()).as("%s %s", algorithm, limit).isTrue();
				assertThat(first.remaining()).as("%s %s", algorithm, limit).isEqualTo(limit.burst() - 1);
				// the counter weighs the previous window too: back to full within two
				assertThat(first.resetAfter()).as("%s %s", algorithm, limit).isPositive()
					.isLessThanOrEqualTo(limit.window().multipliedBy(2));
				// a millisecond window may be over (its key expired) by the next call
				if (limit.limit() == 1 && limit.window().equals(RateLimit.MAX_WINDOW)) {
					RateLimitDecision second = limiter.tryAcquire(key, limit);
					assertThat(second.allowed()).as("%s %s", algorithm, limit).isFalse();
					assertThat(second.retryAfter()).as("%s %s", algorithm, limit).isPositive()
						.isLessThanOrEqualTo(limit.window().multipliedBy(2));
				}
			}
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void refusesWhatWouldOverflowBeforeCallingRedis(Algorithm algorithm) {
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(1, RateLimit.MAX_WINDOW.plusDays(1)))
			.withMessageContaining("window must be at most 36500d");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(1, Duration.ofSeconds(Long.MAX_VALUE / 2)))
			.withMessageContaining("window must be at most");
		if (algorithm != Algorithm.FIXED_WINDOW && algorithm != Algorithm.SLIDING_WINDOW_LOG) {
			// more permits per µs than the scripts' units hold
			assertThatIllegalArgumentException()
				.isThrownBy(() -> algorithm.check(List.of(RateLimit.of(RateLimit.MAX_LIMIT, Duration.ofMillis(1))), 1))
				.withMessageContaining("must stay below 2^53");
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "SLIDING_WINDOW_LOG")
	void refusesASlidingLogCallAboveItsMaximumWithoutCallingRedis(Algorithm algorithm) {
		RedisTestServer redis = RedisTestServer.shared();
		RateLimiter limiter = RedisRateLimiter.builder(algorithm, redis.template()).keyPrefix(this.prefix).build();
		long scriptCalls = redis.scriptCalls();
		RateLimit huge = RateLimit.of(2_000_000, Duration.ofHours(1));
		// today's attack: one call of two million permits (8 s of Redis, a 237 MB key)
		assertThatExceptionOfType(InvalidRateLimitException.class)
			.isThrownBy(() -> limiter.tryAcquire("huge", huge, 2_000_000))
			.withMessageContaining("limit must not exceed 10000 for the sliding window log")
			.withMessageContaining("sliding-window-counter");
		assertThatExceptionOfType(InvalidRateLimitException.class)
			.isThrownBy(() -> limiter.tryAcquireAsync("huge", List.of(huge), 1));
		assertThatExceptionOfType(InvalidRateLimitException.class).isThrownBy(
				() -> limiter.tryAcquire("huge", RateLimit.of(Algorithm.MAX_SLIDING_WINDOW_LOG_LIMIT + 1, Duration.ofMinutes(1))));
		assertThat(redis.scriptCalls()).isEqualTo(scriptCalls);
		// the maximum itself, spent in one call
		RateLimit most = RateLimit.of(Algorithm.MAX_SLIDING_WINDOW_LOG_LIMIT, Duration.ofHours(1));
		assertThat(limiter.tryAcquire("most", most, most.limit()).remaining()).isZero();
		assertThat(limiter.tryAcquire("most", most).allowed()).isFalse();
	}

	private static List<RateLimit> extremes(Algorithm algorithm) {
		List<RateLimit> limits = new ArrayList<>();
		limits.add(RateLimit.of(1, RateLimit.MAX_WINDOW));
		limits.add(RateLimit.of(1, RateLimit.MIN_WINDOW));
		boolean multiplies = algorithm != Algorithm.FIXED_WINDOW && algorithm != Algorithm.SLIDING_WINDOW_LOG;
		long most = (algorithm == Algorithm.SLIDING_WINDOW_LOG) ? Algorithm.MAX_SLIDING_WINDOW_LOG_LIMIT
				: RateLimit.MAX_LIMIT;
		long perMillisecond = multiplies ? (RateLimit.MAX_LIMIT / 1000) - 1 : most;
		long perCentury = multiplies ? RateLimit.MAX_LIMIT / RateLimit.of(1, RateLimit.MAX_WINDOW).windowMicros()
				: most;
		limits.add(RateLimit.of(perMillisecond, RateLimit.MIN_WINDOW));
		limits.add(RateLimit.of(perCentury, RateLimit.MAX_WINDOW));
		for (RateLimit limit : limits) {
			algorithm.check(List.of(limit), 1);
		}
		return limits;
	}

}

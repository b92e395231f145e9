package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Permits given back after a granted call, for every algorithm, on the caller's clock and on the server's:
 * the budget moves back as if the call had taken nothing, never past full, nothing is created for a key that
 * has no state, and a refusal this instance remembers is forgotten.
 */
class RefundRateLimiterTests {

	private final String prefix = "refund-" + UUID.randomUUID().toString().substring(0, 8);

	private final String key = "client";

	static Stream<Arguments> limiters() {
		return Stream.of(Algorithm.values()).flatMap((algorithm) -> Stream.of(Arguments.of(algorithm, true),
				Arguments.of(algorithm, false)));
	}

	private RedisRateLimiter limiter(Algorithm algorithm, boolean callerClock, LocalDenialCache denials) {
		return RedisRateLimiter.builder(algorithm, RedisTestServer.shared().template())
			.keyPrefix(this.prefix)
			.clock(callerClock ? MutableClock.at("2026-05-06T07:08:09Z") : null)
			.denialCache(denials)
			.build();
	}

	@ParameterizedTest(name = "{0}, caller's clock {1}")
	@MethodSource("limiters")
	void givesBackWhatAGrantedCallTook(Algorithm algorithm, boolean callerClock) {
		RedisRateLimiter limiter = limiter(algorithm, callerClock, null);
		RateLimit limit = RateLimit.of(3, Duration.ofHours(1));
		spend(limiter, List.of(limit), 3);
		limiter.refund(this.key, List.of(limit), 1);
		assertThat(limiter.tryAcquire(this.key, limit).allowed()).as("the permit given back").isTrue();
		assertThat(limiter.tryAcquire(this.key, limit).allowed()).as("no more than that").isFalse();
		limiter.refundAsync(this.key, List.of(limit), 2).join();
		assertThat(limiter.tryAcquire(this.key, limit, 2).allowed()).isTrue();
		assertThat(limiter.tryAcquire(this.key, limit).allowed()).isFalse();
	}

	@ParameterizedTest(name = "{0}, caller's clock {1}")
	@MethodSource("limiters")
	void neverGivesBackPastAFullBudget(Algorithm algorithm, boolean callerClock) {
		RedisRateLimiter limiter = limiter(algorithm, callerClock, null);
		RateLimit limit = RateLimit.of(3, Duration.ofHours(1));
		assertThat(limiter.tryAcquire(this.key, limit).allowed()).isTrue();
		for (int i = 0; i < 3; i++) {
			limiter.refund(this.key, List.of(limit), 1);
		}
		spend(limiter, List.of(limit), 3);
	}

	@ParameterizedTest(name = "{0}, caller's clock {1}")
	@MethodSource("limiters")
	void createsNothingForAKeyWithoutState(Algorithm algorithm, boolean callerClock) {
		RedisRateLimiter limiter = limiter(algorithm, callerClock, null);
		RateLimit limit = RateLimit.of(3, Duration.ofHours(1));
		limiter.refund("nobody", List.of(limit), 2);
		assertThat(RedisTestServer.shared().template().keys(this.prefix + ":*")).isEmpty();
		spend(limiter, List.of(limit), 3);
	}

	@ParameterizedTest(name = "{0}, caller's clock {1}")
	@MethodSource("limiters")
	void givesBackUnderEveryLimitOfTheCall(Algorithm algorithm, boolean callerClock) {
		RedisRateLimiter limiter = limiter(algorithm, callerClock, null);
		List<RateLimit> limits = List.of(RateLimit.of(2, Duration.ofMinutes(1)), RateLimit.of(3, Duration.ofHours(1)));
		spend(limiter, limits, 2);
		limiter.refund(this.key, limits, 2);
		List<RateLimitDecision> decisions = limiter.tryAcquire(this.key, limits, 2);
		assertThat(decisions).allMatch(RateLimitDecision::allowed);
		// the hour's limit had 3 and gave 2 back: 2 + 2 of its 3 would not fit had it not
		assertThat(decisions.get(1).remaining()).isEqualTo(1);
	}

	@ParameterizedTest(name = "{0}, caller's clock {1}")
	@MethodSource("limiters")
	void forgetsARefusalThisInstanceRemembers(Algorithm algorithm, boolean callerClock) {
		LocalDenialCache denials = new LocalDenialCache(100);
		RedisRateLimiter limiter = limiter(algorithm, callerClock, denials);
		RateLimit limit = RateLimit.of(1, Duration.ofHours(1));
		assertThat(limiter.tryAcquire(this.key, limit).allowed()).isTrue();
		assertThat(limiter.tryAcquire(this.key, limit).allowed()).isFalse();
		limiter.refund(this.key, List.of(limit), 1);
		assertThat(limiter.tryAcquire(this.key, limit).allowed()).isTrue();
	}

	@ParameterizedTest(name = "{0}, caller's clock {1}")
	@MethodSource("limiters")
	void givesBackThroughTheAlgorithmsLimiterAndItsBlockingLimiter(Algorithm algorithm, boolean callerClock) {
		RedisRateLimiter redis = limiter(algorithm, callerClock, null);
		RateLimiter blocking = redis.blocking(dev.ratelimit.BlockPolicy.of(Duration.ofMinutes(5)));
		RateLimit limit = RateLimit.of(2, Duration.ofHours(1));
		assertThat(blocking.tryAcquire(this.key, limit, 2).allowed()).isTrue();
		blocking.refund(this.key, List.of(limit), 2);
		assertThat(blocking.tryAcquire(this.key, limit, 2).allowed()).isTrue();
	}

	@org.junit.jupiter.api.Test
	void givesBackInTheLocalFailureModesMemory() {
		LocalRateLimiter local = new LocalRateLimiter(10);
		RateLimit limit = RateLimit.of(2, Duration.ofHours(1));
		assertThat(local.tryAcquire(this.key, limit, 2).allowed()).isTrue();
		local.refund(this.key, List.of(limit), 1);
		local.refund(this.key, List.of(limit), 5);
		assertThat(local.tryAcquire(this.key, limit, 2).allowed()).isTrue();
		assertThat(local.tryAcquire(this.key, limit).allowed()).isFalse();
	}

	/** Takes the whole budget one permit at a time and checks that the next is refused. */
	private void spend(RateLimiter limiter, List<RateLimit> limits, int budget) {
		for (int i = 0; i < budget; i++) {
			assertThat(limiter.tryAcquire(this.key, limits, 1)).as("permit %d", i + 1).allMatch(RateLimitDecision::allowed);
		}
		assertThat(limiter.tryAcquire(this.key, limits, 1)).as("permit %d", budget + 1)
			.anyMatch((decision) -> !decision.allowed());
	}

}

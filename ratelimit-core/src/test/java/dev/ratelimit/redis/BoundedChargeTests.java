package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitReservation;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Charges far past the limit ({@code RateLimiter.charge}, a reservation settled above its estimate) on a real Redis,
 * for every algorithm, on a clock the test moves: Redis does bounded work and keeps a key of bounded size, the
 * refusals that follow last exactly as long as the full charge makes them, and no cost up to
 * {@link RateLimiter#MAX_COST} wraps the scripts' arithmetic.
 */
class BoundedChargeTests {

	private static final List<RateLimit> TEN_THOUSAND_A_MINUTE = List.of(RateLimit.of(10_000, Duration.ofMinutes(1)));

	private static final long WINDOW_US = 60_000_000;

	private static final long HUGE = 1_000_000_000;

	/** The longest a debt is kept, in µs: the longest window, 36,500 days (charge.lua's MAX_AHEAD_US). */
	private static final long MAX_AHEAD_US = 36_500L * 86_400 * 1_000_000;

	private static final RedisClient client = RedisClient.create(RedisTestServer.shared().url());

	private static final StatefulRedisConnection<String, String> connection = client.connect();

	private final String prefix = "bounded-" + UUID.randomUUID().toString().substring(0, 8);

	// on a minute's boundary: the sliding window counter's windows start with the test
	private final MutableClock clock = MutableClock.at("2026-12-06T12:00:00Z");

	@AfterAll
	static void close() {
		connection.close();
		client.shutdown();
	}

	private RedisRateLimiter limiter(Algorithm algorithm) {
		return RedisRateLimiter.builder(algorithm, RedisTestServer.shared().template())
			.keyPrefix(this.prefix)
			.clock(this.clock)
			.build();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aChargeOfABillionKeepsRedisQuickAndTheKeySmall(Algorithm algorithm) {
		RedisRateLimiter limiter = limiter(algorithm);
		RedisCommands<String, String> redis = connection.sync();
		String threshold = redis.configGet("slowlog-log-slower-than").get("slowlog-log-slower-than");
		redis.configSet("slowlog-log-slower-than", "10000");
		try {
			redis.slowlogReset();
			limiter.charge("user", TEN_THOUSAND_A_MINUTE, HUGE);
			List<Object> slow = redis.slowlogGet(128);
			assertThat(slow).as("commands slower than 10 ms").noneMatch((entry) -> entry.toString().contains(this.prefix));
		}
		finally {
			redis.configSet("slowlog-log-slower-than", threshold);
		}
		String key = limiter.redisKey("user");
		Long bytes = redis.memoryUsage(key);
		if (algorithm == Algorithm.SLIDING_WINDOW_LOG) {
			// the limit's entries, not a billion
			assertThat(redis.zcard(key)).isEqualTo(10_000);
			assertThat(bytes).isLessThan(2_000_000);
		}
		else {
			assertThat(bytes).isLessThan(200);
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aChargeOfABillionRefusesAsLongAsTheFullChargeWould(Algorithm algorithm) {
		RedisRateLimiter limiter = limiter(algorithm);
		limiter.charge("user", TEN_THOUSAND_A_MINUTE, HUGE);
		long refusedFor = fullChargeRefusesFor(algorithm);
		RateLimitDecision next = limiter.tryAcquire("user", TEN_THOUSAND_A_MINUTE, 1).get(0);
		assertThat(next.allowed()).isFalse();
		assertThat(next.retryAfter()).isEqualTo(Duration.ofNanos(refusedFor * 1000));
		this.clock.advance(Duration.ofNanos((refusedFor - 1) * 1000));
		assertThat(limiter.tryAcquire("user", TEN_THOUSAND_A_MINUTE, 1).get(0).allowed()).isFalse();
		this.clock.advance(Duration.ofNanos(1000));
		assertThat(limiter.tryAcquire("user", TEN_THOUSAND_A_MINUTE, 1).get(0).allowed()).isTrue();
	}

	/** How long a charge of a billion against 10,000 a minute refuses a call of one, in µs. */
	private static long fullChargeRefusesFor(Algorithm algorithm) {
		return switch (algorithm) {
			// the window the charge opened, or its entries, until they leave it
			case FIXED_WINDOW, SLIDING_WINDOW_LOG -> WINDOW_US;
			// the next window, until the billion's weight is down to 9,999: 1e9 × (W - e) <= 9,999 × W
			case SLIDING_WINDOW_COUNTER -> WINDOW_US + WINDOW_US - 599;
			// 6 ms a token: the billion less the 10,000 the bucket held, then the token of the call
			case TOKEN_BUCKET -> (HUGE - 10_000 + 1) * 6_000;
			// the TAT a billion intervals ahead, until it is within the burst less the call's interval
			case GCRA -> (HUGE - 9_999) * 6_000;
		};
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aSettlementOfMaxCostRefusesTheNextRequest(Algorithm algorithm) {
		RedisRateLimiter limiter = limiter(algorithm);
		RateLimitReservation reservation = limiter.reserve("user", TEN_THOUSAND_A_MINUTE, 1, Duration.ofMinutes(5));
		assertThat(reservation.settle(RateLimiter.MAX_COST)).isTrue();
		RateLimitDecision next = limiter.tryAcquire("user", TEN_THOUSAND_A_MINUTE, 1).get(0);
		assertThat(next.allowed()).isFalse();
		assertThat(next.remaining()).isZero();
		long expected = switch (algorithm) {
			case FIXED_WINDOW, SLIDING_WINDOW_LOG -> WINDOW_US;
			// 2^53 - 1 in the current window weighs 9,999 or less only 1 µs before the next one ends
			case SLIDING_WINDOW_COUNTER -> 2 * WINDOW_US;
			// the debt kept at most 36,500 days
			case TOKEN_BUCKET -> MAX_AHEAD_US + 6_000;
			case GCRA -> MAX_AHEAD_US - 9_999 * 6_000;
		};
		assertThat(next.retryAfter()).isEqualTo(Duration.ofNanos(expected * 1000));
		// a day later, the token bucket and GCRA still refuse
		this.clock.advance(Duration.ofDays(1));
		if (algorithm.acceptsBurst()) {
			assertThat(limiter.tryAcquire("user", TEN_THOUSAND_A_MINUTE, 1).get(0).allowed()).isFalse();
		}
		// and a second charge of as much neither wraps nor fails
		limiter.charge("user", TEN_THOUSAND_A_MINUTE, RateLimiter.MAX_COST);
		assertThat(limiter.tryAcquire("user", TEN_THOUSAND_A_MINUTE, 1).get(0).allowed()).isFalse();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void refusesCostsBeyondMaxCostWhereTheyEnter(Algorithm algorithm) {
		RedisRateLimiter limiter = limiter(algorithm);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> limiter.tryAcquire("user", TEN_THOUSAND_A_MINUTE, RateLimiter.MAX_COST + 1))
			.withMessageStartingWith("permits must be between 1 and 9007199254740991");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> limiter.charge("user", TEN_THOUSAND_A_MINUTE, Long.MAX_VALUE))
			.withMessageStartingWith("permits must be between 1 and 9007199254740991, but was 9223372036854775807");
		RateLimitReservation reservation = limiter.reserve("user", TEN_THOUSAND_A_MINUTE, 1, Duration.ofMinutes(5));
		assertThatIllegalArgumentException().isThrownBy(() -> reservation.settle(Long.MAX_VALUE))
			.withMessageStartingWith("actual must be between 0 and 9007199254740991, but was 9223372036854775807");
		assertThatIllegalArgumentException().isThrownBy(() -> reservation.settle(-1))
			.withMessageStartingWith("actual must be between 0 and 9007199254740991, but was -1");
		// refused before anything was sent: the reservation can still be settled
		assertThat(reservation.settle(RateLimiter.MAX_COST)).isTrue();
	}

	@Test
	void theLocalLimiterRefusesCostsBeyondMaxCostAndKeepsCountingPastIt() {
		LocalRateLimiter local = new LocalRateLimiter(10);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> local.charge("user", TEN_THOUSAND_A_MINUTE, RateLimiter.MAX_COST + 1))
			.withMessageStartingWith("permits must be between 1 and 9007199254740991");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> local.refund("user", TEN_THOUSAND_A_MINUTE, Long.MAX_VALUE))
			.withMessageStartingWith("permits must be between 1 and 9007199254740991");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> local.tryAcquire("user", TEN_THOUSAND_A_MINUTE, Long.MAX_VALUE))
			.withMessageStartingWith("permits must be between 1 and 9007199254740991");
		for (int i = 0; i < 3; i++) {
			local.charge("user", TEN_THOUSAND_A_MINUTE, RateLimiter.MAX_COST);
		}
		// the count stops at MAX_COST instead of wrapping to a negative number
		assertThat(local.tryAcquire("user", TEN_THOUSAND_A_MINUTE, 1).get(0).allowed()).isFalse();
	}

}

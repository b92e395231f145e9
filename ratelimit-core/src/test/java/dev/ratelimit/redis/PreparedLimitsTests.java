package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.InvalidRateLimitException;
import dev.ratelimit.RateLimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The limits a limiter has met are checked and turned into script arguments once, and a list it knows
 * is still checked against each call's permits, with the same errors as the first time.
 */
class PreparedLimitsTests {

	private static final List<RateLimit> LIMITS = List.of(RateLimit.of(10, Duration.ofSeconds(1)),
			RateLimit.of(100, Duration.ofMinutes(1)));

	@Test
	void preparesTheScriptArgumentsAndTheDenialKeysOnce() {
		PreparedLimits prepared = new PreparedLimits(Algorithm.FIXED_WINDOW);
		PreparedLimits.Prepared first = prepared.of(LIMITS, 1);
		assertThat(first.args()).containsExactly("10", "1000000", "10", "100", "60000000", "100");
		assertThat(first.maxPermits()).isEqualTo(10);
		assertThat(first.denialSuffix()).isEqualTo(RedisKeys.denialSuffix(LIMITS));
		// an equal list, built anew, finds the same
		assertThat(prepared.of(new ArrayList<>(LIMITS), 3)).isSameAs(first);
	}

	@Test
	void aKnownListIsStillCheckedAgainstEachCallsPermits() {
		PreparedLimits prepared = new PreparedLimits(Algorithm.FIXED_WINDOW);
		prepared.of(LIMITS, 1);
		assertThatExceptionOfType(InvalidRateLimitException.class).isThrownBy(() -> prepared.of(LIMITS, 11))
			.satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo("permits"))
			.withMessageContaining("must not exceed the limit of 10, but was 11");
		assertThatExceptionOfType(InvalidRateLimitException.class).isThrownBy(() -> prepared.of(LIMITS, 0))
			.withMessageContaining("permits must be at least 1, but was 0");
		assertThat(prepared.of(LIMITS, 10).maxPermits()).isEqualTo(10);
	}

	@Test
	void aListChangedByItsCallerAfterwardsIsPreparedAgain() {
		PreparedLimits prepared = new PreparedLimits(Algorithm.FIXED_WINDOW);
		List<RateLimit> limits = new ArrayList<>(LIMITS);
		prepared.of(limits, 1);
		limits.add(RateLimit.of(1000, Duration.ofHours(1)));
		assertThat(prepared.of(limits, 1).args()).hasSize(9);
		assertThat(prepared.of(LIMITS, 1).args()).hasSize(6);
		limits.add(RateLimit.of(5, Duration.ofHours(1)));
		assertThatExceptionOfType(InvalidRateLimitException.class).isThrownBy(() -> prepared.of(limits, 1))
			.withMessageContaining("must have distinct windows");
	}

	@Test
	void keepsABoundedNumberOfLists() {
		PreparedLimits prepared = new PreparedLimits(Algorithm.TOKEN_BUCKET);
		for (int i = 1; i <= 3 * PreparedLimits.MAX_LISTS; i++) {
			List<RateLimit> limits = List.of(RateLimit.of(i, Duration.ofSeconds(1)));
			assertThat(prepared.of(limits, 1).args()).containsExactly(Integer.toString(i), "1000000", Integer.toString(i));
			assertThat(prepared.size()).isLessThanOrEqualTo(PreparedLimits.MAX_LISTS);
		}
	}

}

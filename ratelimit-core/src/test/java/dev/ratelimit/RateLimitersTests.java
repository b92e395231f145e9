package dev.ratelimit;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The core's way to decide calls of several limiters together, without Redis: limiters that cannot are told
 * apart, and calls of them are refused with a message that says what to check.
 */
class RateLimitersTests {

	private final RateLimit limit = RateLimit.of(1, Duration.ofMinutes(1));

	@Test
	void tellsThatLimitersWhichCannotDecideTogetherCannot() {
		LocalRateLimiter local = new LocalRateLimiter(10);
		assertThat(RateLimiters.canDecideTogether(List.of())).isFalse();
		assertThat(RateLimiters.canDecideTogether(List.of(local, local))).isFalse();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiters.tryAcquireTogether(List.of(new RateLimiters.Call(local, "k", List.of(this.limit), 1))))
			.withMessageContaining("check canDecideTogether");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimiters.tryAcquireTogetherAsync(List.of()));
	}

	@Test
	void keepsKeysBoundedAndDistinct() {
		String longId = "x".repeat(100_000);
		assertThat(RateLimitKeys.segment("client-7")).isEqualTo("client-7");
		assertThat(RateLimitKeys.segment(longId)).startsWith("~").hasSize(65);
		assertThat(RateLimitKeys.segment(longId + "a")).isNotEqualTo(RateLimitKeys.segment(longId + "b"));
		assertThat(RateLimitKeys.segment("~abc")).isNotEqualTo("~abc");
		assertThat(RateLimitKeys.local(Algorithm.GCRA, longId)).startsWith("gcra:~").hasSizeLessThan(80);
		assertThat(RateLimitKeys.fingerprint(longId)).matches("#[0-9a-f]{12}");
	}

}

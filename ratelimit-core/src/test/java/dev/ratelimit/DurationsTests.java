package dev.ratelimit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DurationsTests {

	@Test
	void roundsSecondsUp() {
		assertThat(Durations.secondsRoundedUp(Duration.ZERO)).isZero();
		assertThat(Durations.secondsRoundedUp(Duration.ofNanos(1))).isEqualTo(1);
		assertThat(Durations.secondsRoundedUp(Duration.ofMillis(59_001))).isEqualTo(60);
		assertThat(Durations.secondsRoundedUp(Duration.ofSeconds(60))).isEqualTo(60);
		assertThat(RateLimitDecision.rejected(5, 0, Duration.ofMillis(1), Duration.ofMillis(1500)).retryAfterSeconds())
			.isEqualTo(1);
		assertThat(RateLimitDecision.allowed(5, 4, Duration.ofMillis(1500)).resetAfterSeconds()).isEqualTo(2);
		assertThat(RateLimit.of(5, Duration.ofMillis(500)).windowSeconds()).isEqualTo(1);
	}

}

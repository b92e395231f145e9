package dev.ratelimit.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The test clock stands still until advanced, in any zone, and only moves forward.
 */
class RateLimitTestClockTests {

	private final RateLimitTestClock clock = new RateLimitTestClock(Instant.parse("2026-12-07T02:00:00Z"));

	@Test
	void standsStillUntilAdvanced() {
		this.clock.advance(Duration.ofSeconds(90));
		assertThat(this.clock.instant()).isEqualTo(Instant.parse("2026-12-07T02:01:30Z"));
		assertThat(this.clock.instant()).isEqualTo(Instant.parse("2026-12-07T02:01:30Z"));
	}

	@Test
	void movesInAnotherZoneToo() {
		Clock paris = this.clock.withZone(ZoneId.of("Europe/Paris"));
		this.clock.advance(Duration.ofMinutes(1));
		assertThat(LocalTime.now(paris)).isEqualTo(LocalTime.of(3, 1));
		assertThat(this.clock.withZone(this.clock.getZone())).isSameAs(this.clock);
	}

	@Test
	void refusesToGoBack() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.clock.advance(Duration.ofSeconds(-1)))
			.withMessageContaining("duration must not be negative");
	}

}

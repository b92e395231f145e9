package dev.ratelimit.rules;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DurationsTests {

	@Test
	void readsTheSimpleFormWithEveryUnitAndMillisecondsWithoutOne() {
		assertThat(Durations.parse("250")).isEqualTo(Duration.ofMillis(250));
		assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
		assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
		assertThat(Durations.parse("1m")).isEqualTo(Duration.ofMinutes(1));
		assertThat(Durations.parse("2H")).isEqualTo(Duration.ofHours(2));
		assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
		assertThat(Durations.parse("7us")).isEqualTo(Duration.ofNanos(7000));
		assertThat(Durations.parse(" 10s ")).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void readsIso8601() {
		assertThat(Durations.parse("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
		assertThat(Durations.parse("pt2h")).isEqualTo(Duration.ofHours(2));
	}

	@Test
	void refusesWhatIsNoDuration() {
		assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse("10 seconds"));
		assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse("5y"));
		assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse("PTx"));
		assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse(""));
	}

}

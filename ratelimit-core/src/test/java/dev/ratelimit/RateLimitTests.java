package dev.ratelimit;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitTests {

	@Test
	void saysItsWindowInWords() {
		List<Duration> windows = List.of(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMinutes(1),
				Duration.ofMinutes(90), Duration.ofHours(1), Duration.ofDays(1), Duration.ofMillis(1500));
		assertThat(windows.stream().map((window) -> RateLimit.of(1, window).windowInWords()))
			.containsExactly("second", "10 seconds", "minute", "90 minutes", "hour", "24 hours", "1500ms");
	}

}

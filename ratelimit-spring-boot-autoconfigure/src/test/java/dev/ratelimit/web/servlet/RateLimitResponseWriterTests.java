package dev.ratelimit.web.servlet;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitResponseWriterTests {

	@Test
	void roundsSecondsUp() {
		assertThat(RateLimitResponseWriter.seconds(Duration.ZERO)).isZero();
		assertThat(RateLimitResponseWriter.seconds(Duration.ofNanos(1))).isEqualTo(1);
		assertThat(RateLimitResponseWriter.seconds(Duration.ofMillis(59_001))).isEqualTo(60);
		assertThat(RateLimitResponseWriter.seconds(Duration.ofSeconds(60))).isEqualTo(60);
	}

	@Test
	void escapesJsonStrings() {
		assertThat(RateLimitResponseWriter.json("a\"b\\c\nd\u0001é")).isEqualTo("\"a\\\"b\\\\c\\nd\\u0001é\"");
	}

}

package dev.ratelimit.client;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a partner's answer asks for: {@code Retry-After} on a 429 or 503 (seconds or a date), a {@code RateLimit}
 * item with nothing remaining, the longest of them; nothing otherwise.
 */
class PartnerAnswersTests {

	private static final Instant NOW = Instant.parse("2026-12-05T10:00:00Z");

	@Test
	void retryAfterInSecondsOrAsADateOnTooManyRequestsAndServiceUnavailable() {
		assertThat(PartnerAnswers.waitAskedFor(429, headers("Retry-After", "2"), NOW)).isEqualTo(Duration.ofSeconds(2));
		String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(NOW.plusSeconds(30).atOffset(ZoneOffset.UTC));
		assertThat(PartnerAnswers.waitAskedFor(503, headers("Retry-After", date), NOW)).isEqualTo(Duration.ofSeconds(30));
		// a Retry-After on another status (a redirect's) asks for nothing, nor does a date past or a zero
		assertThat(PartnerAnswers.waitAskedFor(301, headers("Retry-After", "2"), NOW)).isNull();
		assertThat(PartnerAnswers.waitAskedFor(429, headers("Retry-After", "0"), NOW)).isNull();
		assertThat(PartnerAnswers.waitAskedFor(429, headers("Retry-After", "soon"), NOW)).isNull();
		assertThat(PartnerAnswers.waitAskedFor(429, new HttpHeaders(), NOW)).isNull();
	}

	@Test
	void aRateLimitItemWithNothingRemainingAsksForItsResetWhateverTheStatus() {
		assertThat(PartnerAnswers.waitAskedFor(200, headers("RateLimit", "\"default\";r=0;t=12"), NOW))
			.isEqualTo(Duration.ofSeconds(12));
		assertThat(PartnerAnswers.waitAskedFor(200, headers("RateLimit", "\"minute\";r=3;t=12, \"day\";r=0;t=3600"), NOW))
			.isEqualTo(Duration.ofHours(1));
		assertThat(PartnerAnswers.waitAskedFor(200, headers("RateLimit", "\"default\";r=5;t=12"), NOW)).isNull();
		// the longest of what the answer asks for
		HttpHeaders both = headers("RateLimit", "\"default\";r=0;t=5");
		both.set("Retry-After", "9");
		assertThat(PartnerAnswers.waitAskedFor(429, both, NOW)).isEqualTo(Duration.ofSeconds(9));
	}

	private static HttpHeaders headers(String name, String value) {
		HttpHeaders headers = new HttpHeaders();
		headers.set(name, value);
		return headers;
	}

}

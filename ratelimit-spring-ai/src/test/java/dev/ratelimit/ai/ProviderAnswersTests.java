package dev.ratelimit.ai;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.metadata.EmptyRateLimit;
import org.springframework.ai.chat.metadata.RateLimit;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait a provider's answer asks for: its {@code retry-after-ms}, {@code retry-after} (seconds or a date), or the
 * reset of its limits at zero in OpenAI's notation; rate-limit metadata at zero asks for its reset.
 */
class ProviderAnswersTests {

	private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");

	@Test
	void readsOpenAisResets() {
		assertThat(ProviderAnswers.goDuration("6m0s")).isEqualTo(Duration.ofMinutes(6));
		assertThat(ProviderAnswers.goDuration("1s")).isEqualTo(Duration.ofSeconds(1));
		assertThat(ProviderAnswers.goDuration("20ms")).isEqualTo(Duration.ofMillis(20));
		assertThat(ProviderAnswers.goDuration("1h2m3.5s")).isEqualTo(Duration.ofMillis(3_723_500));
		assertThat(ProviderAnswers.goDuration("2")).isEqualTo(Duration.ofSeconds(2));
		assertThat(ProviderAnswers.goDuration("0s")).isNull();
		assertThat(ProviderAnswers.goDuration("soon")).isNull();
		assertThat(ProviderAnswers.goDuration("1s later")).isNull();
	}

	@Test
	void aRetryAfterComesBeforeTheResets() {
		assertThat(wait(Map.of("retry-after-ms", "250", "retry-after", "1", "x-ratelimit-remaining-requests", "0",
				"x-ratelimit-reset-requests", "6m0s"))).isEqualTo(Duration.ofMillis(250));
		assertThat(wait(Map.of("retry-after", "7", "x-ratelimit-remaining-requests", "0",
				"x-ratelimit-reset-requests", "6m0s"))).isEqualTo(Duration.ofSeconds(7));
		assertThat(wait(Map.of("retry-after", "Mon, 07 Dec 2026 10:00:30 GMT"))).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void withoutARetryAfterTheLongestResetOfTheLimitsAtZero() {
		assertThat(wait(Map.of("x-ratelimit-remaining-requests", "4999", "x-ratelimit-reset-requests", "6m0s",
				"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "1.5s")))
			.isEqualTo(Duration.ofMillis(1500));
		assertThat(wait(Map.of("x-ratelimit-reset-requests", "20ms", "x-ratelimit-reset-tokens", "1s")))
			.isEqualTo(Duration.ofSeconds(1));
		assertThat(wait(Map.of())).isNull();
	}

	@Test
	void readsTheRefusalsOfRestClientAndWebClientAmongAFailuresCauses() {
		HttpHeaders headers = new HttpHeaders();
		headers.set("x-ratelimit-remaining-tokens", "0");
		headers.set("x-ratelimit-reset-tokens", "20ms");
		RuntimeException restClient = new IllegalStateException("the model failed",
				HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", headers, new byte[0],
						null));
		assertThat(ProviderAnswers.waitAskedBy(restClient, NOW)).isEqualTo(Duration.ofMillis(20));
		RuntimeException webClient = WebClientResponseException.create(429, "Too Many Requests", headers, new byte[0],
				null);
		assertThat(ProviderAnswers.waitAskedBy(webClient, NOW)).isEqualTo(Duration.ofMillis(20));
		RuntimeException serverError = HttpServerErrorException.create(HttpStatus.SERVICE_UNAVAILABLE, "Unavailable",
				headers, new byte[0], null);
		assertThat(ProviderAnswers.waitAskedBy(serverError, NOW)).isNull();
		assertThat(ProviderAnswers.waitAskedBy(new IllegalStateException("no answer"), NOW)).isNull();
	}

	@Test
	void metadataAtZeroAsksForItsReset() {
		assertThat(ProviderAnswers.waitAskedBy(new EmptyRateLimit())).isNull();
		assertThat(ProviderAnswers.waitAskedBy(limit(0L, Duration.ofSeconds(20), 5L, Duration.ofSeconds(40))))
			.isEqualTo(Duration.ofSeconds(20));
		assertThat(ProviderAnswers.waitAskedBy(limit(3L, Duration.ofSeconds(20), 0L, Duration.ofSeconds(40))))
			.isEqualTo(Duration.ofSeconds(40));
		assertThat(ProviderAnswers.waitAskedBy(limit(3L, Duration.ofSeconds(20), 5L, Duration.ofSeconds(40))))
			.isNull();
	}

	private static Duration wait(Map<String, String> headers) {
		return ProviderAnswers.waitAskedFor((name) -> {
			String value = headers.get(name);
			return (value != null) ? List.of(value) : List.of();
		}, NOW);
	}

	private static RateLimit limit(Long requestsRemaining, Duration requestsReset, Long tokensRemaining,
			Duration tokensReset) {
		return new RateLimit() {

			@Override
			public Long getRequestsLimit() {
				return 100L;
			}

			@Override
			public Long getRequestsRemaining() {
				return requestsRemaining;
			}

			@Override
			public Duration getRequestsReset() {
				return requestsReset;
			}

			@Override
			public Long getTokensLimit() {
				return 1000L;
			}

			@Override
			public Long getTokensRemaining() {
				return tokensRemaining;
			}

			@Override
			public Duration getTokensReset() {
				return tokensReset;
			}

		};
	}

}

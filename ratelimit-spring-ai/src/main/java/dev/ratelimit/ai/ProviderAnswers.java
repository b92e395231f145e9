package dev.ratelimit.ai;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.metadata.RateLimit;
import org.springframework.http.HttpHeaders;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClientResponseException;

/**
 * What a provider's answer says of its own limits: how long it asks to be left alone. A refusal ({@code 429}) asks for
 * its {@code retry-after-ms} or {@code retry-after} (seconds, or an HTTP date), else for the reset
 * ({@code x-ratelimit-reset-requests}, {@code x-ratelimit-reset-tokens}, in OpenAI's {@code 6m0s}, {@code 1s},
 * {@code 20ms}) of the limits it says are at zero. The refusal is read from the exception a call fails with, or from
 * any of its causes: OpenAI's Java SDK's {@code OpenAIServiceException}, Spring's {@link RestClientResponseException}
 * (clients on {@code RestClient}) and {@code WebClientResponseException} (on {@code WebClient}), each read only when
 * its library is on the class path. A response's {@link RateLimit} metadata at zero requests or tokens asks for its
 * reset.
 */
final class ProviderAnswers {

	private static final boolean OPENAI_SDK = ClassUtils.isPresent("com.openai.errors.OpenAIServiceException",
			ProviderAnswers.class.getClassLoader());

	private static final boolean WEB_CLIENT = ClassUtils.isPresent(
			"org.springframework.web.reactive.function.client.WebClientResponseException",
			ProviderAnswers.class.getClassLoader());

	/** One part of a Go duration, as OpenAI writes its resets: {@code 1h2m3.5s}, {@code 20ms}. */
	private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|h|m|s)");

	private ProviderAnswers() {
	}

	/**
	 * Returns how long a provider's refusal asks to be left alone.
	 * @param failure what the call failed with
	 * @param now the time, for a {@code retry-after} date
	 * @return the wait, or {@code null} when the failure is no refusal of the provider's, or asks for no wait
	 */
	static @Nullable Duration waitAskedBy(Throwable failure, Instant now) {
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < 10; depth++) {
			Function<String, List<String>> headers = refusalHeaders(cause);
			if (headers != null) {
				return waitAskedFor(headers, now);
			}
			cause = cause.getCause();
		}
		return null;
	}

	/**
	 * Returns how long a response's rate-limit metadata asks to be left alone: until the reset of requests or tokens
	 * when none are left.
	 * @param limit the metadata, {@code null} or empty when the client fills none
	 * @return the wait, or {@code null}
	 */
	static @Nullable Duration waitAskedBy(@Nullable RateLimit limit) {
		if (limit == null) {
			return null;
		}
		Duration requests = exhausted(limit.getRequestsRemaining(), limit.getRequestsReset());
		Duration tokens = exhausted(limit.getTokensRemaining(), limit.getTokensReset());
		return longest(requests, tokens);
	}

	private static @Nullable Duration exhausted(@Nullable Long remaining, @Nullable Duration reset) {
		// Spring AI's empty metadata says 0 left, reset 0: no reset, no wait
		if (remaining == null || remaining != 0 || reset == null || reset.isNegative() || reset.isZero()) {
			return null;
		}
		return reset;
	}

	/** The headers of a refusal ({@code 429}), by name; {@code null} when the exception is none. */
	private static @Nullable Function<String, List<String>> refusalHeaders(Throwable exception) {
		if (OPENAI_SDK) {
			Function<String, List<String>> headers = OpenAiSdk.refusalHeaders(exception);
			if (headers != null) {
				return headers;
			}
		}
		if (exception instanceof RestClientResponseException response && response.getStatusCode().value() == 429) {
			HttpHeaders headers = response.getResponseHeaders();
			return (headers != null) ? headers::getOrEmpty : (name) -> List.of();
		}
		return WEB_CLIENT ? WebClient.refusalHeaders(exception) : null;
	}

	/**
	 * The wait a refusal's headers ask for: {@code retry-after-ms}, else {@code retry-after}, else the longest reset of
	 * the limits at zero (or of those whose remaining is not said).
	 */
	static @Nullable Duration waitAskedFor(Function<String, List<String>> headers, Instant now) {
		String millis = first(headers, "retry-after-ms");
		if (millis != null) {
			try {
				double value = Double.parseDouble(millis);
				if (value > 0) {
					return Duration.ofNanos((long) Math.ceil(value * 1_000_000));
				}
			}
			catch (NumberFormatException ex) {
				// not a number: the header says nothing
			}
		}
		Duration retryAfter = retryAfter(first(headers, "retry-after"), now);
		if (retryAfter != null) {
			return retryAfter;
		}
		return longest(reset(headers, "requests"), reset(headers, "tokens"));
	}

	private static @Nullable Duration reset(Function<String, List<String>> headers, String kind) {
		String remaining = first(headers, "x-ratelimit-remaining-" + kind);
		if (remaining != null && !remaining.strip().equals("0")) {
			return null;
		}
		String reset = first(headers, "x-ratelimit-reset-" + kind);
		return (reset != null) ? goDuration(reset) : null;
	}

	/**
	 * Reads a duration as OpenAI writes its resets ({@code 6m0s}, {@code 1s}, {@code 20ms}, {@code 1.5s}), or plain
	 * seconds.
	 * @param text the header's value
	 * @return the duration, or {@code null} when it is none or not positive
	 */
	static @Nullable Duration goDuration(String text) {
		String value = text.strip().toLowerCase(Locale.ROOT);
		if (value.isEmpty()) {
			return null;
		}
		double nanos = 0;
		try {
			nanos = Double.parseDouble(value) * 1e9;
		}
		catch (NumberFormatException notSeconds) {
			Matcher part = PART.matcher(value);
			int end = 0;
			while (part.lookingAt()) {
				double amount = Double.parseDouble(part.group(1));
				nanos += amount * switch (part.group(2)) {
					case "h" -> 3_600e9;
					case "m" -> 60e9;
					case "s" -> 1e9;
					default -> 1e6;
				};
				end = part.end();
				part.region(end, value.length());
			}
			if (end != value.length()) {
				return null;
			}
		}
		return (nanos >= 1) ? Duration.ofNanos((long) Math.ceil(nanos)) : null;
	}

	private static @Nullable Duration retryAfter(@Nullable String value, Instant now) {
		if (value == null || value.isBlank()) {
			return null;
		}
		String text = value.strip();
		try {
			double seconds = Double.parseDouble(text);
			return (seconds > 0) ? Duration.ofNanos((long) Math.ceil(seconds * 1e9)) : null;
		}
		catch (NumberFormatException ex) {
			// an HTTP date
		}
		try {
			Duration until = Duration.between(now,
					ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
			return (until.isNegative() || until.isZero()) ? null : until;
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

	private static @Nullable String first(Function<String, List<String>> headers, String name) {
		List<String> values = headers.apply(name);
		return (values.isEmpty()) ? null : values.get(0);
	}

	private static @Nullable Duration longest(@Nullable Duration one, @Nullable Duration other) {
		if (one == null) {
			return other;
		}
		return (other == null || one.compareTo(other) >= 0) ? one : other;
	}

	/** OpenAI's Java SDK's refusals; loaded only when the SDK is present. */
	private static final class OpenAiSdk {

		private OpenAiSdk() {
		}

		static @Nullable Function<String, List<String>> refusalHeaders(Throwable exception) {
			if (exception instanceof com.openai.errors.OpenAIServiceException service && service.statusCode() == 429) {
				com.openai.core.http.Headers headers = service.headers();
				return headers::values;
			}
			return null;
		}

	}

	/** Spring WebClient's refusals; loaded only when spring-webflux is present. */
	private static final class WebClient {

		private WebClient() {
		}

		static @Nullable Function<String, List<String>> refusalHeaders(Throwable exception) {
			if (exception instanceof org.springframework.web.reactive.function.client.WebClientResponseException response
					&& response.getStatusCode().value() == 429) {
				return response.getHeaders()::getOrEmpty;
			}
			return null;
		}

	}

}

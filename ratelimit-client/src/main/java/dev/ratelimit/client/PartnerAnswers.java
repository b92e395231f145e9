package dev.ratelimit.client;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

/**
 * What a partner's answer says of its budget: how long it asks to be left alone. A {@code 429} or {@code 503} with
 * {@code Retry-After} (seconds, or an HTTP date) asks for that long; a {@code RateLimit} header (the IETF draft's
 * {@code "policy";r=0;t=10}) whose remaining is 0 asks for its reset, whatever the status.
 */
final class PartnerAnswers {

	private PartnerAnswers() {
	}

	/**
	 * Returns how long the partner asks to be left alone.
	 * @param status the answer's status
	 * @param headers its headers
	 * @param now the time it arrived, for a {@code Retry-After} date
	 * @return the longest wait it asks for, or {@code null} when it asks for none
	 */
	static @Nullable Duration waitAskedFor(int status, HttpHeaders headers, Instant now) {
		Duration longest = null;
		if (status == 429 || status == 503) {
			longest = retryAfter(headers.getFirst(HttpHeaders.RETRY_AFTER), now);
		}
		for (String value : headers.getOrEmpty("RateLimit")) {
			Duration exhausted = exhausted(value);
			if (exhausted != null && (longest == null || exhausted.compareTo(longest) > 0)) {
				longest = exhausted;
			}
		}
		return longest;
	}

	private static @Nullable Duration retryAfter(@Nullable String value, Instant now) {
		if (value == null || value.isBlank()) {
			return null;
		}
		String text = value.strip();
		try {
			long seconds = Long.parseLong(text);
			return (seconds > 0) ? Duration.ofSeconds(seconds) : null;
		}
		catch (NumberFormatException ex) {
			// an HTTP date
		}
		try {
			Duration until = Duration.between(now, ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME)
				.toInstant());
			return (until.isNegative() || until.isZero()) ? null : until;
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

	/**
	 * The reset of the first item of a {@code RateLimit} header whose remaining is 0: its items are separated by
	 * commas, their parameters by semicolons.
	 */
	private static @Nullable Duration exhausted(String value) {
		Duration longest = null;
		for (String item : value.split(",")) {
			Long remaining = null;
			Long reset = null;
			for (String parameter : item.split(";")) {
				int equals = parameter.indexOf('=');
				if (equals < 0) {
					continue;
				}
				String name = parameter.substring(0, equals).strip();
				String number = parameter.substring(equals + 1).strip();
				try {
					if (name.equals("r")) {
						remaining = Long.parseLong(number);
					}
					else if (name.equals("t")) {
						reset = Long.parseLong(number);
					}
				}
				catch (NumberFormatException ex) {
					// not a number: the parameter says nothing
				}
			}
			if (remaining != null && remaining == 0 && reset != null && reset > 0) {
				Duration wait = Duration.ofSeconds(reset);
				if (longest == null || wait.compareTo(longest) > 0) {
					longest = wait;
				}
			}
		}
		return longest;
	}

}

package dev.ratelimit.rules.flow;

import java.util.List;
import java.util.function.BiConsumer;

import org.springframework.http.HttpHeaders;

/**
 * Hands each field of the headers the flow writes ({@link RateLimitCall#writeHeaders}) to an entry point's own
 * response, headers or trailers, as one value per name: every entry point writes them this way.
 *
 * @since 0.1.0
 */
public final class HeaderFields {

	private HeaderFields() {
	}

	/**
	 * Calls {@code field} with each header's name and its values joined by {@code ", "}, in the order they were set.
	 * Reads the headers' own map: {@link HttpHeaders#forEach} copies every name into a new case-insensitive set first,
	 * on every request.
	 * @param headers the headers
	 * @param field takes a name and its value
	 */
	public static void forEach(HttpHeaders headers, BiConsumer<String, String> field) {
		headers.asMultiValueMap().forEach((name, values) -> field.accept(name, value(values)));
	}

	private static String value(List<String> values) {
		return (values.size() == 1) ? values.get(0) : String.join(", ", values);
	}

}

package dev.ratelimit.testsupport;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.greenbytes.http.sfv.Dictionary;
import org.greenbytes.http.sfv.Item;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.OuterList;
import org.greenbytes.http.sfv.Parametrizable;
import org.greenbytes.http.sfv.Parser;

/**
 * Reads the {@code RateLimit} and {@code RateLimit-Policy} fields with a real RFC 8941 (Structured Field Values)
 * parser, for tests to assert on their members rather than on their spelling. A value that is no valid structured
 * field fails the parse.
 */
public final class RateLimitFields {

	private static final Pattern PARTITION_KEY = Pattern.compile(";pk=:[A-Za-z0-9+/=]*:");

	private RateLimitFields() {
	}

	/**
	 * Parses a field whose value is an RFC 8941 List: {@code RateLimit} and {@code RateLimit-Policy} of draft 9 and
	 * 12, {@code RateLimit-Policy} of draft 7.
	 * @param value the field's value
	 * @return its members, in order
	 * @throws IllegalArgumentException when the value is not a valid List
	 */
	public static List<Member> list(String value) {
		OuterList parsed = Parser.parseList(value);
		List<Member> members = new ArrayList<>();
		for (ListElement<?> element : parsed.get()) {
			members.add(new Member(plain(element.get()), params(element)));
		}
		return members;
	}

	/**
	 * Parses a field whose value is an RFC 8941 Dictionary: {@code RateLimit} of draft 7
	 * ({@code limit=100, remaining=99, reset=60}).
	 * @param value the field's value
	 * @return its members' values by key, in order
	 * @throws IllegalArgumentException when the value is not a valid Dictionary
	 */
	public static Map<String, Object> dictionary(String value) {
		Dictionary parsed = Parser.parseDictionary(value);
		Map<String, Object> members = new LinkedHashMap<>();
		parsed.get().forEach((key, member) -> members.put(key, plain(member.get())));
		return members;
	}

	/**
	 * Returns a field's value without its {@code pk} parameters (draft 12's partition keys), for tests of what else
	 * the field says: the partition keys are the business of {@code RateLimitHeadersOnEveryStackTests}.
	 * @param value the field's value
	 * @return the value without {@code ;pk=:...:}
	 */
	public static String withoutPartitionKeys(String value) {
		return PARTITION_KEY.matcher(value).replaceAll("");
	}

	private static Map<String, Object> params(Parametrizable<?> element) {
		Map<String, Object> params = new LinkedHashMap<>();
		for (Map.Entry<String, Item<?>> param : element.getParams().entrySet()) {
			params.put(param.getKey(), plain(param.getValue().get()));
		}
		return params;
	}

	/** A member's value as Java has it: {@code Long}, {@code String}, {@code Boolean}, or {@code byte[]}. */
	private static Object plain(Object value) {
		if (value instanceof ByteBuffer bytes) {
			byte[] copy = new byte[bytes.remaining()];
			bytes.duplicate().get(copy);
			return copy;
		}
		return value;
	}

	/**
	 * One member of a List: its value (the policy's name, or for draft 7 its quota) and its parameters.
	 * @param value the value: a {@code String} for a String or a Token, a {@code Long} for an Integer
	 * @param params the parameters by key, in order: {@code Long}, {@code String}, {@code Boolean} or {@code byte[]}
	 */
	public record Member(Object value, Map<String, Object> params) {

		/**
		 * Returns an Integer parameter.
		 * @param key the parameter's key
		 * @return its value
		 * @throws IllegalArgumentException when the member has no such Integer parameter
		 */
		public long integer(String key) {
			if (this.params.get(key) instanceof Long number) {
				return number;
			}
			throw new IllegalArgumentException("No Integer parameter " + key + " in " + this);
		}

		/**
		 * Returns a Byte Sequence parameter.
		 * @param key the parameter's key
		 * @return its bytes
		 * @throws IllegalArgumentException when the member has no such Byte Sequence parameter
		 */
		public byte[] bytes(String key) {
			if (this.params.get(key) instanceof byte[] bytes) {
				return bytes;
			}
			throw new IllegalArgumentException("No Byte Sequence parameter " + key + " in " + this);
		}

	}

}

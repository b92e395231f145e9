package dev.ratelimit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * How a caller's id stands in keys: bounded and inert whatever the caller sends, the same in Redis keys, in the
 * local denial cache, in the plan cache and in the {@code local} failure mode's memory, so that a long or odd id
 * costs no more than a short one and can never stand for another.
 *
 * @since 0.1.0
 */
public final class RateLimitKeys {

	/** The longest id kept verbatim in a key; longer ones are hashed. */
	public static final int MAX_VERBATIM_LENGTH = 128;

	private RateLimitKeys() {
	}

	/**
	 * Returns the id as it stands in a key: verbatim when it is short and made of plain characters
	 * (letters, digits and {@code . _ : @ / + = -}), else {@code ~} and the hex SHA-256 of its UTF-8
	 * bytes. The mapping is one-to-one: a verbatim id never starts with {@code ~}, and no id can pick
	 * another's hashed form.
	 * @param id any string
	 * @return the key segment, at most 128 characters
	 */
	public static String segment(String id) {
		return isPlain(id) ? id : "~" + sha256(id);
	}

	/**
	 * Returns the key under which an in-memory limiter decides for {@code id} under an algorithm while Redis
	 * cannot: the same key whether a Redis limiter's fallback or the web layer's {@code local} failure mode
	 * decides, and bounded like a Redis key.
	 * @param algorithm the algorithm
	 * @param id the caller's key
	 * @return the key
	 */
	public static String local(Algorithm algorithm, String id) {
		return algorithm.id() + ":" + segment(id);
	}

	/**
	 * Returns the key under which an in-memory limiter holds slots of work in flight for {@code id} while Redis
	 * cannot, as {@link #local(Algorithm, String)} does for permits.
	 * @param id the caller's key
	 * @return the key
	 */
	public static String localSlots(String id) {
		return "concurrency:" + segment(id);
	}

	/**
	 * Returns a short fingerprint of a key for logs: the first 12 hex digits of its SHA-256, so that log
	 * lines can be matched up without showing addresses or API keys.
	 * @param key the key
	 * @return the fingerprint, such as {@code #3fa2c1d9e0b4}
	 */
	public static String fingerprint(String key) {
		return "#" + sha256(key).substring(0, 12);
	}

	/**
	 * Returns whether a string is kept verbatim in a key: 1 to 128 letters, digits or {@code . _ : @ / + = -}.
	 * A loop rather than a regular expression: every decision asks it.
	 * @param value the string
	 * @return {@code true} when it stands for itself
	 */
	public static boolean isPlain(String value) {
		int length = value.length();
		if (length == 0 || length > MAX_VERBATIM_LENGTH) {
			return false;
		}
		for (int i = 0; i < length; i++) {
			char c = value.charAt(i);
			boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
					|| c == '_' || c == ':' || c == '@' || c == '/' || c == '+' || c == '=' || c == '-';
			if (!plain) {
				return false;
			}
		}
		return true;
	}

	private static String sha256(String id) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}

package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Builds Redis keys from caller-chosen ids so that any id maps to its own bounded, inert key.
 */
public final class RedisKeys {

	/** The longest id kept verbatim in a key; longer ones are hashed. */
	public static final int MAX_VERBATIM_LENGTH = 128;

	private static final Pattern VERBATIM = Pattern.compile("[A-Za-z0-9._:@/+=-]{1," + MAX_VERBATIM_LENGTH + "}");

	private RedisKeys() {
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
		if (VERBATIM.matcher(id).matches()) {
			return id;
		}
		return "~" + sha256(id);
	}

	/**
	 * Checks a key prefix chosen in configuration.
	 * @param prefix the prefix
	 * @return the prefix
	 * @throws IllegalArgumentException when it is null, empty, or not plain characters
	 */
	public static String checkPrefix(String prefix) {
		if (prefix == null || !VERBATIM.matcher(prefix).matches()) {
			throw new IllegalArgumentException(
					"keyPrefix must be 1 to 128 letters, digits or . _ : @ / + = -, but was '" + prefix + "'");
		}
		return prefix;
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

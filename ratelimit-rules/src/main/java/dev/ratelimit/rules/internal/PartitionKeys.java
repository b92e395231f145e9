package dev.ratelimit.rules.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.jspecify.annotations.Nullable;

/**
 * Derives the {@code pk} parameter of the draft-12 rate-limit headers from a budget's partition (its rule's name and
 * its key's kind and value): the first 12 bytes of an HMAC-SHA256 of the partition, as an RFC 8941 byte sequence. Every
 * instance with the same secret derives the same {@code pk}; without a secret a fixed one is used, the same in every
 * application, so that whoever can guess a key (a client address, a sequential user id) can confirm the guess.
 */
final class PartitionKeys {

	/** The secret of applications that set none: it hides nothing from whoever reads this source. */
	private static final String FIXED_SECRET = "dev.ratelimit.headers.partition-key";

	private static final String ALGORITHM = "HmacSHA256";

	private static final int LENGTH = 12;

	/** The most partitions whose {@code pk} is remembered; past it, the memory starts afresh. */
	static final int REMEMBERED = 10_000;

	private final Mac prototype;

	/** The {@code pk} of partitions seen lately: a hot key's requests pay no HMAC each. */
	private final Map<String, String> remembered = new ConcurrentHashMap<>();

	/**
	 * Creates the derivation.
	 * @param secret the application's secret ({@code ratelimit.headers.partition-key-secret}), or {@code null} or
	 * empty for the fixed one
	 */
	PartitionKeys(@Nullable String secret) {
		String used = (secret != null && !secret.isEmpty()) ? secret : FIXED_SECRET;
		try {
			this.prototype = Mac.getInstance(ALGORITHM);
			this.prototype.init(new SecretKeySpec(used.getBytes(StandardCharsets.UTF_8), ALGORITHM));
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("The JVM offers no " + ALGORITHM + ", which the pk of the rate-limit"
					+ " headers needs; set ratelimit.headers.version=draft-9 to send headers without it", ex);
		}
	}

	/**
	 * Returns the {@code pk} of a partition, as an RFC 8941 byte sequence ({@code :base64:}).
	 * @param partition the rule's name and the key's kind and value
	 * @return the byte sequence
	 */
	String of(String partition) {
		String known = this.remembered.get(partition);
		if (known != null) {
			return known;
		}
		String derived = derive(partition);
		if (this.remembered.size() >= REMEMBERED) {
			this.remembered.clear();
		}
		this.remembered.put(partition, derived);
		return derived;
	}

	private String derive(String partition) {
		byte[] hash = mac().doFinal(partition.getBytes(StandardCharsets.UTF_8));
		byte[] truncated = new byte[LENGTH];
		System.arraycopy(hash, 0, truncated, 0, LENGTH);
		return ":" + Base64.getEncoder().encodeToString(truncated) + ":";
	}

	/** A {@link Mac} of its own for the caller: one is not safe across threads, and a clone skips the look-up. */
	private Mac mac() {
		try {
			return (Mac) this.prototype.clone();
		}
		catch (CloneNotSupportedException ex) {
			throw new IllegalStateException(ALGORITHM + " of " + this.prototype.getProvider() + " cannot be cloned", ex);
		}
	}

}

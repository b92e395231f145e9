package dev.ratelimit.rules;

/**
 * The header through which the trusted proxies pass on the client address.
 *
 * @since 0.1.0
 */
public enum ForwardedHeader {

	/** {@code X-Forwarded-For: client, proxy1, proxy2}. */
	X_FORWARDED_FOR,

	/** RFC 7239 {@code Forwarded: for=client, for=proxy1}. */
	FORWARDED

}

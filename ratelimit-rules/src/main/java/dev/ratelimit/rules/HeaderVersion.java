package dev.ratelimit.rules;

/**
 * Which version of the IETF draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers) the
 * rate-limit headers follow ({@code ratelimit.headers.version}).
 *
 * @since 0.1.0
 */
public enum HeaderVersion {

	/**
	 * Draft 7: one combined {@code RateLimit: limit=100, remaining=99, reset=60} of the tightest limit, and
	 * {@code RateLimit-Policy: 100;w=60} listing every limit; as express-rate-limit's {@code draft-7}.
	 */
	DRAFT_7,

	/**
	 * Draft 9: named policies, {@code RateLimit-Policy: "api";q=100;w=60} and {@code RateLimit: "api";r=99;t=60};
	 * limits of requests in flight are left out.
	 */
	DRAFT_9,

	/**
	 * Draft 12: draft 9's fields with the partition key {@code pk} (a keyed hash of the rule and the key, as an
	 * RFC 8941 byte sequence) and the quota unit {@code qu} where it is not requests: limits of requests in flight
	 * are announced with {@code qu="concurrent-requests"}, rules whose requests cost other than one permit with
	 * {@code qu="cost-units"}, or the unit a limit says it counts ({@code qu="tokens"} for a chat model's token
	 * budget, {@link dev.ratelimit.rules.flow.AppliedLimit#unit()}).
	 */
	DRAFT_12

}

package dev.ratelimit.rules;

/**
 * What a rule does with a request that lacks its key: the header, parameter or principal it reads.
 *
 * @since 0.1.0
 */
public enum MissingKey {

	/** The request is charged under its client address. */
	CLIENT_ADDRESS,

	/** The request is refused with 400 Bad Request, naming what it lacks. */
	REJECT,

	/** The rule does not apply to the request. */
	SKIP

}

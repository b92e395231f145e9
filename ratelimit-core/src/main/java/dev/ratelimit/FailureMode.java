package dev.ratelimit;

/**
 * What a request meets when the limiter cannot reach a decision, for example because Redis is down.
 *
 * @since 0.1.0
 */
public enum FailureMode {

	/** The request passes unlimited. */
	FAIL_OPEN,

	/** The request is refused with 503 Service Unavailable. */
	FAIL_CLOSED,

	/**
	 * Each instance enforces the limits in its own memory ({@link LocalRateLimiter}) until Redis is back,
	 * so that an outage does not remove all protection.
	 */
	LOCAL;

	/**
	 * Returns the mode's name as properties and messages write it, such as {@code fail-open}.
	 * @return the name
	 */
	public String id() {
		return Names.kebab(this);
	}

}

package dev.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a limiter cannot reach a decision, for example while Redis is down or its circuit
 * breaker is open. Callers apply their failure mode: let the call through, or refuse it.
 *
 * @since 0.1.0
 */
public class RateLimiterUnavailableException extends RuntimeException {

	/**
	 * Creates an exception.
	 * @param message what happened
	 * @param cause the underlying failure, or {@code null} when the call was not attempted
	 */
	public RateLimiterUnavailableException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}

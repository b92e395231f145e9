package dev.ratelimit.rules.flow;

import org.springframework.http.ResponseEntity;

/**
 * Builds the response to a request the rules refused: {@code 429 Too Many Requests} when a limit
 * refused it, {@code 503 Service Unavailable} when no decision could be reached in the
 * {@code fail-closed} mode, {@code 400 Bad Request} when the request lacks the key of a rule with
 * {@code missing-key=reject}. The web stack writes the entity's body through the application's message
 * converters (or codecs), after the rate-limit headers and {@code Retry-After}, which the entity's own
 * headers may replace. Declare a bean of this type to send another body.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RateLimitRejectionHandler {

	/**
	 * Returns the response to a refused request.
	 * @param rejection the request and the limits that refused it
	 * @return the status, any headers of its own, and the body
	 */
	ResponseEntity<?> handle(RateLimitRejection rejection);

}

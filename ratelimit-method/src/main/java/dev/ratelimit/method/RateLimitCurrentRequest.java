package dev.ratelimit.method;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.flow.RateLimitRequest;

/**
 * Finds the web request a bean method is called in, so that the method's limits keyed by {@code ip},
 * {@code header:<Name>}, {@code param:<name>}, {@code principal} or {@code bean:<name>} read it as the web stack's
 * rules do. The servlet stack registers one (the request bound to the calling thread).
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RateLimitCurrentRequest {

	/**
	 * Returns the request the calling thread serves, for reading its client address and keys only.
	 * @return the request, or {@code null} when the call is made outside one
	 */
	@Nullable RateLimitRequest current();

}

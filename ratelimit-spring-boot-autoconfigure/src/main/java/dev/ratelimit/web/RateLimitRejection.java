package dev.ratelimit.web;

import java.util.List;

/**
 * A request the rules refused, as the {@link RateLimitRejectionHandler} sees it.
 *
 * @param method the request's HTTP method
 * @param path the request's path as sent, the context path included
 * @param violated the limits that refused it, with their decisions; empty when no decision could be
 * reached ({@code fail-closed})
 * @param retryAfterSeconds how long the client should wait before trying again, in whole seconds
 */
public record RateLimitRejection(String method, String path, List<AppliedLimit> violated, long retryAfterSeconds) {

	/**
	 * Returns the rejection of a request that a rule refused.
	 * @param method the request's HTTP method
	 * @param path the request's path
	 * @param verdict the verdict, with violated limits
	 * @return the rejection
	 */
	public static RateLimitRejection of(String method, String path, RateLimitVerdict verdict) {
		long retryAfter = verdict.unavailable() ? 1 : RateLimitHeaders.retryAfterSeconds(verdict.violated());
		return new RateLimitRejection(method, path, verdict.violated(), retryAfter);
	}

	/**
	 * Returns whether no decision could be reached, rather than a limit refusing the request.
	 * @return {@code true} for the {@code fail-closed} refusal
	 */
	public boolean unavailable() {
		return this.violated.isEmpty();
	}

}

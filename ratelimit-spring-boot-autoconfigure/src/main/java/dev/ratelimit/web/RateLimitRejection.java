package dev.ratelimit.web;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A request the rules refused, as the {@link RateLimitRejectionHandler} sees it.
 *
 * @param method the request's HTTP method
 * @param path the request's path as sent, the context path included
 * @param violated the limits that refused it, with their decisions; empty when no decision could be
 * reached ({@code fail-closed}) or the request lacks a key
 * @param retryAfterSeconds how long the client should wait before trying again, in whole seconds; zero for a
 * request that lacks a key
 * @param missingKey the rule whose key the request lacks ({@code missing-key=reject}), or {@code null}
 * @param denied whether the request's client address is on the deny list ({@code ratelimit.deny.addresses}):
 * refused before any rule
 */
public record RateLimitRejection(String method, String path, List<AppliedLimit> violated, long retryAfterSeconds,
		@Nullable RateLimitRule missingKey, boolean denied) {

	/**
	 * Returns the rejection of a request from a denied client address.
	 * @param method the request's HTTP method
	 * @param path the request's path
	 * @return the rejection
	 */
	public static RateLimitRejection denied(String method, String path) {
		return new RateLimitRejection(method, path, List.of(), 0, null, true);
	}

	/**
	 * Returns the rejection of a request that a rule refused.
	 * @param method the request's HTTP method
	 * @param path the request's path
	 * @param verdict the verdict, with violated limits
	 * @return the rejection
	 */
	public static RateLimitRejection of(String method, String path, RateLimitVerdict verdict) {
		long retryAfter = (verdict.missingKey() != null) ? 0
				: verdict.unavailable() ? 1 : RateLimitHeaders.retryAfterSeconds(verdict.violated());
		return new RateLimitRejection(method, path, verdict.violated(), retryAfter, verdict.missingKey(), false);
	}

	/**
	 * Returns whether no decision could be reached, rather than a limit refusing the request.
	 * @return {@code true} for the {@code fail-closed} refusal
	 */
	public boolean unavailable() {
		return this.violated.isEmpty() && this.missingKey == null && !this.denied;
	}

}

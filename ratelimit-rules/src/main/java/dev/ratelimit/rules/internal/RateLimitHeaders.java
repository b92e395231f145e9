package dev.ratelimit.rules.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.springframework.http.HttpHeaders;
import dev.ratelimit.rules.flow.AppliedLimit;

/**
 * Builds the rate-limit headers of draft-ietf-httpapi-ratelimit-headers ({@code RateLimit-Policy},
 * {@code RateLimit}), optionally the legacy {@code X-RateLimit-*} ones, and {@code Retry-After} of
 * refused requests, for any web stack to set.
 *
 * @since 0.1.0
 */
final class RateLimitHeaders {

	private final boolean enabled;

	private final boolean legacy;

	/**
	 * Creates the headers' builder.
	 * @param enabled whether to send {@code RateLimit-Policy} and {@code RateLimit}
	 * @param legacy whether to send {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
	 * {@code X-RateLimit-Reset}
	 */
	public RateLimitHeaders(boolean enabled, boolean legacy) {
		this.enabled = enabled;
		this.legacy = legacy;
	}

	/**
	 * Returns the headers of the limits applied to a request, one list member per limit, and
	 * {@code Retry-After} when the request was refused.
	 * @param verdict what the rules decided
	 * @return the headers, empty when no limit was applied
	 */
	public HttpHeaders of(RateLimitVerdict verdict) {
		HttpHeaders headers = new HttpHeaders();
		List<AppliedLimit> applied = windows(verdict.applied());
		if (!applied.isEmpty() && this.enabled) {
			List<String> policies = new ArrayList<>(applied.size());
			List<String> states = new ArrayList<>(applied.size());
			for (AppliedLimit limit : applied) {
				String name = "\"" + limit.policy() + "\"";
				policies.add(name + ";q=" + limit.limit().limit() + ";w=" + limit.limit().windowSeconds());
				states.add(name + ";r=" + limit.decision().remaining() + ";t=" + limit.decision().resetAfterSeconds());
			}
			headers.set("RateLimit-Policy", String.join(", ", policies));
			headers.set("RateLimit", String.join(", ", states));
		}
		if (!applied.isEmpty() && this.legacy) {
			AppliedLimit tightest = applied.stream()
				.min(Comparator.comparingLong((AppliedLimit limit) -> limit.decision().remaining()))
				.orElseThrow();
			headers.set("X-RateLimit-Limit", Long.toString(tightest.limit().limit()));
			headers.set("X-RateLimit-Remaining", Long.toString(tightest.decision().remaining()));
			headers.set("X-RateLimit-Reset", Long.toString(tightest.decision().resetAfterSeconds()));
		}
		if (verdict.unavailable()) {
			headers.set(HttpHeaders.RETRY_AFTER, "1");
		}
		else if (!verdict.violated().isEmpty()) {
			headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(verdict.violated())));
		}
		return headers;
	}

	/** The limits of permits per window: a concurrency has no window to announce. */
	private static List<AppliedLimit> windows(List<AppliedLimit> applied) {
		for (AppliedLimit limit : applied) {
			if (limit.concurrency()) {
				return applied.stream().filter((each) -> !each.concurrency()).toList();
			}
		}
		return applied;
	}

	/**
	 * Returns how long a refused request should wait, in whole seconds: the longest wait among the
	 * limits that refused it, at least one.
	 * @param violated the limits that refused it
	 * @return the seconds
	 */
	public static long retryAfterSeconds(List<AppliedLimit> violated) {
		long longest = 1;
		for (AppliedLimit limit : violated) {
			longest = Math.max(longest, limit.decision().retryAfterSeconds());
		}
		return longest;
	}

}

package dev.ratelimit.rules.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;

import dev.ratelimit.rules.HeaderVersion;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.AppliedLimit;

/**
 * Builds the rate-limit headers of draft-ietf-httpapi-ratelimit-headers ({@code RateLimit-Policy},
 * {@code RateLimit}) in the draft's version 7, 9 or 12, optionally the legacy {@code X-RateLimit-*} ones,
 * {@code Retry-After} of refused requests, and a {@code Server-Timing} entry {@code ratelimit-wait;dur=<ms>} for
 * requests that waited for a permit ({@code max-wait}), for any web stack to set.
 *
 * @since 0.1.0
 */
final class RateLimitHeaders {

	/** The W3C Server-Timing header. */
	static final String SERVER_TIMING = "Server-Timing";

	/** The name of the Server-Timing metric that tells a request's wait for a permit. */
	static final String WAIT_METRIC = "ratelimit-wait";

	private final HeaderVersion version;

	private final boolean enabled;

	private final boolean legacy;

	private final PartitionKeys partitionKeys;

	/**
	 * Creates the headers' builder.
	 * @param version the draft the {@code RateLimit-Policy} and {@code RateLimit} fields follow
	 * @param enabled whether to send {@code RateLimit-Policy} and {@code RateLimit}
	 * @param legacy whether to send {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
	 * {@code X-RateLimit-Reset}
	 * @param partitionKeySecret the secret of draft 12's {@code pk}, or {@code null} for a fixed one
	 */
	RateLimitHeaders(HeaderVersion version, boolean enabled, boolean legacy, @Nullable String partitionKeySecret) {
		this.version = version;
		this.enabled = enabled;
		this.legacy = legacy;
		this.partitionKeys = new PartitionKeys(partitionKeySecret);
	}

	/**
	 * Returns the headers of the limits applied to a request, one list member per limit, and
	 * {@code Retry-After} when the request was refused.
	 * @param verdict what the rules decided
	 * @return the headers, empty when no limit was applied
	 */
	public HttpHeaders of(RateLimitVerdict verdict) {
		HttpHeaders headers = new HttpHeaders();
		List<AppliedLimit> windows = windows(verdict.applied());
		List<AppliedLimit> applied = (this.version == HeaderVersion.DRAFT_12) ? verdict.applied() : windows;
		if (!applied.isEmpty() && this.enabled) {
			switch (this.version) {
				case DRAFT_7 -> draft7(applied, headers);
				case DRAFT_9 -> draft9(applied, headers);
				case DRAFT_12 -> draft12(applied, headers);
			}
		}
		if (!windows.isEmpty() && this.legacy) {
			AppliedLimit tightest = tightest(windows);
			headers.set("X-RateLimit-Limit", Long.toString(tightest.limit().limit()));
			headers.set("X-RateLimit-Remaining", Long.toString(tightest.decision().remaining()));
			headers.set("X-RateLimit-Reset", Long.toString(tightest.decision().resetAfterSeconds()));
		}
		if (verdict.waitedNanos() > 0) {
			// the W3C Server-Timing entry tells how long the request waited for a permit (max-wait), in milliseconds
			headers.add(SERVER_TIMING, WAIT_METRIC + ";dur=" + String.format(java.util.Locale.ROOT, "%.1f",
					verdict.waitedNanos() / 1_000_000.0));
		}
		if (verdict.unavailable()) {
			headers.set(HttpHeaders.RETRY_AFTER, "1");
		}
		else if (!verdict.violated().isEmpty()) {
			headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(verdict.violated())));
		}
		return headers;
	}

	/** Draft 7: every limit's quota and window unnamed, and the tightest limit's state in one item. */
	private static void draft7(List<AppliedLimit> applied, HttpHeaders headers) {
		List<String> policies = new ArrayList<>(applied.size());
		for (AppliedLimit limit : applied) {
			policies.add(limit.limit().limit() + ";w=" + limit.limit().windowSeconds());
		}
		AppliedLimit tightest = tightest(applied);
		headers.set("RateLimit-Policy", String.join(", ", policies));
		headers.set("RateLimit", "limit=" + tightest.limit().limit() + ", remaining=" + tightest.decision().remaining()
				+ ", reset=" + tightest.decision().resetAfterSeconds());
	}

	/** Draft 9: a named item per limit of permits per window. */
	private static void draft9(List<AppliedLimit> applied, HttpHeaders headers) {
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

	/**
	 * Draft 12: draft 9's items, the limits of requests in flight among them, with their quota unit where it is not
	 * requests and their partition key.
	 */
	private void draft12(List<AppliedLimit> applied, HttpHeaders headers) {
		// one builder per field: this runs on every request
		StringBuilder policies = new StringBuilder(64 * applied.size());
		StringBuilder states = new StringBuilder(48 * applied.size());
		for (AppliedLimit limit : applied) {
			if (!policies.isEmpty()) {
				policies.append(", ");
				states.append(", ");
			}
			String name = policyName(limit, applied);
			policies.append('"').append(name).append("\";q=").append(limit.limit().limit());
			String unit = unit(limit);
			if (unit != null) {
				policies.append(";qu=\"").append(unit).append('"');
			}
			states.append('"').append(name).append("\";r=").append(limit.decision().remaining());
			if (!limit.concurrency()) {
				policies.append(";w=").append(limit.limit().windowSeconds());
				states.append(";t=").append(limit.decision().resetAfterSeconds());
			}
			if (limit.partition() != null) {
				String partition = this.partitionKeys.of(limit.partition());
				policies.append(";pk=").append(partition);
				states.append(";pk=").append(partition);
			}
		}
		headers.set("RateLimit-Policy", policies.toString());
		headers.set("RateLimit", states.toString());
	}

	/**
	 * A limit's policy name: a rule's limit of requests in flight is named as the rule, and {@code -concurrency}
	 * follows when the rule's limit per window has that name too.
	 */
	private static String policyName(AppliedLimit limit, List<AppliedLimit> applied) {
		if (limit.concurrency()) {
			for (AppliedLimit other : applied) {
				if (!other.concurrency() && other.policy().equals(limit.policy())) {
					return limit.policy() + "-concurrency";
				}
			}
		}
		return limit.policy();
	}

	/** The quota unit of a limit that does not count requests, else {@code null}. */
	private static @Nullable String unit(AppliedLimit limit) {
		if (limit.concurrency()) {
			return "concurrent-requests";
		}
		if (limit.unit() != null) {
			return limit.unit();
		}
		RateLimitRule rule = limit.rule();
		if (rule != null && (rule.costFrom() != null || rule.cost() != 1)) {
			return "cost-units";
		}
		return null;
	}

	private static AppliedLimit tightest(List<AppliedLimit> applied) {
		return applied.stream()
			.min(Comparator.comparingLong((AppliedLimit limit) -> limit.decision().remaining()))
			.orElseThrow();
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

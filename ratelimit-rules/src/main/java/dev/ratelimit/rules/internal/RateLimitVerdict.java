package dev.ratelimit.rules.internal;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.RateLimitRule;

/**
 * What the rules decided for one request.
 *
 * @param applied every limit applied, with its decision, in order: the rate-limit headers announce them
 * @param violated the limits that refused the request; not empty when it is to be refused with 429
 * @param unavailable whether no decision could be reached and the failure mode refuses the request
 * ({@code fail-closed})
 * @param missingKey the rule whose key the request lacks, refusing it with 400 ({@code missing-key=reject}),
 * or {@code null}
 * @param counted the charges taken under rules that count responses by status, to settle with
 * {@link RateLimitFlow#end} once the final status is known; empty when the request is refused (they
 * were given back)
 * @param slots the slots of requests in flight held for it ({@code concurrency} rules), given back after the response;
 * empty when the request is refused (they were given back)
 * @param waitedNanos how long the request waited for a permit of rules with {@code max-wait}, 0 when it did not
 * @since 0.1.0
 */
record RateLimitVerdict(List<AppliedLimit> applied, List<AppliedLimit> violated, boolean unavailable,
		@Nullable RateLimitRule missingKey, List<StatusCharge> counted, List<RateLimitSlot> slots, long waitedNanos) {

	/**
	 * Creates a verdict of a request that did not wait.
	 * @param applied every limit applied, with its decision, in order
	 * @param violated the limits that refused the request
	 * @param unavailable whether the failure mode refuses the request
	 * @param missingKey the rule whose key the request lacks, or {@code null}
	 * @param counted the charges to settle by status
	 * @param slots the slots held for it
	 */
	RateLimitVerdict(List<AppliedLimit> applied, List<AppliedLimit> violated, boolean unavailable,
			@Nullable RateLimitRule missingKey, List<StatusCharge> counted, List<RateLimitSlot> slots) {
		this(applied, violated, unavailable, missingKey, counted, slots, 0);
	}

	/**
	 * Creates a verdict without slots of requests in flight.
	 * @param applied every limit applied, with its decision, in order
	 * @param violated the limits that refused the request
	 * @param unavailable whether the failure mode refuses the request
	 * @param missingKey the rule whose key the request lacks, or {@code null}
	 * @param counted the charges to settle by status
	 */
	public RateLimitVerdict(List<AppliedLimit> applied, List<AppliedLimit> violated, boolean unavailable,
			@Nullable RateLimitRule missingKey, List<StatusCharge> counted) {
		this(applied, violated, unavailable, missingKey, counted, List.of());
	}

	/**
	 * Creates a verdict without charges to settle after the response.
	 * @param applied every limit applied, with its decision, in order
	 * @param violated the limits that refused the request
	 * @param unavailable whether the failure mode refuses the request
	 * @param missingKey the rule whose key the request lacks, or {@code null}
	 */
	public RateLimitVerdict(List<AppliedLimit> applied, List<AppliedLimit> violated, boolean unavailable,
			@Nullable RateLimitRule missingKey) {
		this(applied, violated, unavailable, missingKey, List.of());
	}

	/**
	 * Returns whether the request may go on to its handler.
	 * @return {@code true} when no limit refused it and no failure refused it
	 */
	public boolean allowed() {
		return this.violated.isEmpty() && !this.unavailable && this.missingKey == null;
	}

	/**
	 * Returns what the request settles after its response: its charges by status and its slots.
	 * @return what it settles
	 */
	public AfterResponse afterResponse() {
		return Settlement.of(this.counted, this.slots);
	}

	/**
	 * Returns this verdict with the limits an earlier stage applied to the same request first, so that
	 * the headers announce every rule applied to it.
	 * @param earlier the limits applied before, or {@code null} when none were
	 * @return the verdict of the whole request so far
	 */
	public RateLimitVerdict after(@Nullable List<AppliedLimit> earlier) {
		if (earlier == null || earlier.isEmpty()) {
			return this;
		}
		List<AppliedLimit> all = new ArrayList<>(earlier);
		all.addAll(this.applied);
		return new RateLimitVerdict(all, this.violated, this.unavailable, this.missingKey, this.counted, this.slots,
				this.waitedNanos);
	}

	/**
	 * Returns this verdict of a request that waited for a permit.
	 * @param nanos how long it waited in all
	 * @return the verdict
	 */
	RateLimitVerdict waited(long nanos) {
		return new RateLimitVerdict(this.applied, this.violated, this.unavailable, this.missingKey, this.counted,
				this.slots, nanos);
	}

}

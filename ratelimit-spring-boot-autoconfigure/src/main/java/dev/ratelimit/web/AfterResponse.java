package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.web.internal.StatusCharge;

/**
 * What a request that was let through settles once its response is complete, with {@link RateLimitFlow#settle}: the
 * charges of rules that count responses by status ({@code count-statuses}), kept or given back by the final status,
 * and the slots of rules that limit requests in flight ({@code concurrency}), given back whatever the outcome.
 *
 * @param charges the charges to settle by status
 * @param slots the slots held while the request runs
 * @since 0.1.0
 */
public record AfterResponse(List<StatusCharge> charges, List<RateLimitSlot> slots) {

	/** Nothing to settle. */
	public static final AfterResponse NONE = new AfterResponse(List.of(), List.of());

	public AfterResponse {
		charges = List.copyOf(charges);
		slots = List.copyOf(slots);
	}

	/**
	 * Returns whether there is nothing to settle.
	 * @return {@code true} without charges and slots
	 */
	public boolean isEmpty() {
		return this.charges.isEmpty() && this.slots.isEmpty();
	}

	/**
	 * Returns what this and another stage of the same request settle.
	 * @param more what the other stage settles
	 * @return both
	 */
	public AfterResponse and(AfterResponse more) {
		if (more.isEmpty()) {
			return this;
		}
		if (isEmpty()) {
			return more;
		}
		List<StatusCharge> allCharges = new ArrayList<>(this.charges);
		allCharges.addAll(more.charges);
		List<RateLimitSlot> allSlots = new ArrayList<>(this.slots);
		allSlots.addAll(more.slots);
		return new AfterResponse(allCharges, allSlots);
	}

}

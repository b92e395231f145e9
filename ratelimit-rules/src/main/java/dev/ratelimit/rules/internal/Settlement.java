package dev.ratelimit.rules.internal;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.rules.flow.AfterResponse;

/**
 * The engine's {@link AfterResponse}: the charges to settle by status or actual cost, and the slots held while the
 * call runs.
 *
 * @param charges the charges to settle
 * @param slots the slots held
 */
record Settlement(List<StatusCharge> charges, List<RateLimitSlot> slots) implements AfterResponse {

	Settlement {
		charges = List.copyOf(charges);
		slots = List.copyOf(slots);
	}

	/**
	 * Returns what an entry point handed back, as the engine made it.
	 * @param after what the engine handed out: a settlement, or {@link AfterResponse#NONE}
	 * @return the settlement; empty for {@link AfterResponse#NONE}
	 */
	static Settlement of(AfterResponse after) {
		if (after instanceof Settlement settlement) {
			return settlement;
		}
		if (after.isEmpty()) {
			return new Settlement(List.of(), List.of());
		}
		throw new IllegalArgumentException("not made by the rule engine: " + after);
	}

	/**
	 * Returns what charges and slots settle, {@link AfterResponse#NONE} when nothing.
	 */
	static AfterResponse of(List<StatusCharge> charges, List<RateLimitSlot> slots) {
		return (charges.isEmpty() && slots.isEmpty()) ? AfterResponse.NONE : new Settlement(charges, slots);
	}

	@Override
	public boolean isEmpty() {
		return this.charges.isEmpty() && this.slots.isEmpty();
	}

	@Override
	public AfterResponse and(AfterResponse more) {
		if (more.isEmpty()) {
			return this;
		}
		if (isEmpty()) {
			return more;
		}
		Settlement other = of(more);
		List<StatusCharge> allCharges = new ArrayList<>(this.charges);
		allCharges.addAll(other.charges);
		List<RateLimitSlot> allSlots = new ArrayList<>(this.slots);
		allSlots.addAll(other.slots);
		return new Settlement(allCharges, allSlots);
	}

	@Override
	public boolean hasCharges() {
		return !this.charges.isEmpty();
	}

	@Override
	public boolean hasSlots() {
		return !this.slots.isEmpty();
	}

	@Override
	public AfterResponse chargesOnly() {
		return of(this.charges, List.of());
	}

	@Override
	public AfterResponse slotsOnly() {
		return of(List.of(), this.slots);
	}

	@Override
	public AfterResponse statusChargesOnly() {
		return of(this.charges.stream().filter(Settlement::byStatusAlone).toList(), List.of());
	}

	@Override
	public AfterResponse withoutStatusCharges() {
		return of(this.charges.stream().filter((charge) -> !byStatusAlone(charge)).toList(), this.slots);
	}

	private static boolean byStatusAlone(StatusCharge charge) {
		return charge.rule().costFrom() == null;
	}

}

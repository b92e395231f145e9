package dev.ratelimit.rules.flow;

/**
 * {@link AfterResponse#NONE}: nothing to settle.
 */
enum NothingToSettle implements AfterResponse {

	INSTANCE;

	@Override
	public boolean isEmpty() {
		return true;
	}

	@Override
	public AfterResponse and(AfterResponse more) {
		return more;
	}

	@Override
	public boolean hasCharges() {
		return false;
	}

	@Override
	public boolean hasSlots() {
		return false;
	}

	@Override
	public AfterResponse chargesOnly() {
		return this;
	}

	@Override
	public AfterResponse slotsOnly() {
		return this;
	}

	@Override
	public AfterResponse statusChargesOnly() {
		return this;
	}

	@Override
	public AfterResponse withoutStatusCharges() {
		return this;
	}

}

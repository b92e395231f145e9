package dev.ratelimit.rules.flow;

/**
 * What a call that was let through settles once it is complete, with {@link RateLimitFlow#end}: the charges of
 * rules that count responses by status ({@code count-statuses}) or read the actual cost ({@code cost-from}), and the
 * slots of rules that limit calls in flight ({@code concurrency}), given back whatever the outcome. The engine makes
 * and reads it; an entry point holds it, splits it by when it settles each part, and hands it back.
 *
 * @since 0.1.0
 */
public interface AfterResponse {

	/** Nothing to settle. */
	AfterResponse NONE = NothingToSettle.INSTANCE;

	/**
	 * Returns whether there is nothing to settle.
	 * @return {@code true} without charges and slots
	 */
	boolean isEmpty();

	/**
	 * Returns what this and another stage of the same call settle.
	 * @param more what the other stage settles
	 * @return both
	 */
	AfterResponse and(AfterResponse more);

	/**
	 * Returns whether there are charges to settle (by status or by actual cost).
	 * @return {@code true} when some rule charged the call for after it
	 */
	boolean hasCharges();

	/**
	 * Returns whether slots of calls in flight are held.
	 * @return {@code true} when some {@code concurrency} rule took a slot
	 */
	boolean hasSlots();

	/**
	 * Returns the charges alone, without the slots.
	 * @return the charges
	 */
	AfterResponse chargesOnly();

	/**
	 * Returns the slots alone, without the charges.
	 * @return the slots
	 */
	AfterResponse slotsOnly();

	/**
	 * Returns the charges settled by the status alone: those of rules that count statuses and read no actual cost.
	 * @return those charges, without slots
	 */
	AfterResponse statusChargesOnly();

	/**
	 * Returns everything but {@link #statusChargesOnly()}.
	 * @return the other charges and the slots
	 */
	AfterResponse withoutStatusCharges();

}

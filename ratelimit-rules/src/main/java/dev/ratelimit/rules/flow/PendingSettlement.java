package dev.ratelimit.rules.flow;

/**
 * What the stages of one request hand over for after its response ({@link RateLimitCall#settleAfter}), held until
 * the request ends. A stage may finish after the request ended (the client went away while Redis was deciding, and the
 * decision, which is never cancelled, took a slot): what it hands over then is refused, and the caller settles it at
 * once, so that no slot is left held and renewed forever.
 *
 * @since 0.1.0
 */
public final class PendingSettlement {

	/** A request that ended with nothing held: it holds nothing more. */
	public static final PendingSettlement ENDED = ended();

	private AfterResponse held = AfterResponse.NONE;

	private boolean closed;

	private static PendingSettlement ended() {
		PendingSettlement ended = new PendingSettlement();
		ended.closed = true;
		return ended;
	}

	/**
	 * Holds what a stage hands over, unless the request has ended.
	 * @param after what to settle
	 * @return {@code true} when held; {@code false} when the request has ended: the caller settles it now
	 */
	public synchronized boolean add(AfterResponse after) {
		if (this.closed) {
			return false;
		}
		this.held = this.held.and(after);
		return true;
	}

	/**
	 * Takes the charges held, to settle before the response is committed; the slots stay until {@link #close()}.
	 * @return the charges, with no slots
	 */
	public synchronized AfterResponse takeCharges() {
		AfterResponse charges = this.held.chargesOnly();
		this.held = this.held.slotsOnly();
		return charges;
	}

	/**
	 * Ends the request: returns everything held, and refuses what any stage hands over from now on.
	 * @return what to settle
	 */
	public synchronized AfterResponse close() {
		this.closed = true;
		AfterResponse all = this.held;
		this.held = AfterResponse.NONE;
		return all;
	}

}

package dev.ratelimit.web.servlet;

import dev.ratelimit.rules.flow.AfterResponse;

/**
 * What one servlet request settles, each part taken once: the charges of {@code count-statuses} rules as its status is
 * committed, the rest ({@code cost-from} reservations, slots) once its response is complete. The request's threads
 * (the container's, an asynchronous handler's) may take them.
 */
final class RequestSettlement {

	private AfterResponse pending = AfterResponse.NONE;

	/** Adds what a stage of the request settles. */
	synchronized void add(AfterResponse after) {
		this.pending = this.pending.and(after);
	}

	/** Takes the charges settled by the status alone: those of rules that count statuses, not read a cost. */
	synchronized AfterResponse takeStatusCharges() {
		AfterResponse byStatus = this.pending.statusChargesOnly();
		if (byStatus.isEmpty()) {
			return AfterResponse.NONE;
		}
		this.pending = this.pending.withoutStatusCharges();
		return byStatus;
	}

	/** Takes everything still to settle. */
	synchronized AfterResponse takeAll() {
		AfterResponse all = this.pending;
		this.pending = AfterResponse.NONE;
		return all;
	}

}

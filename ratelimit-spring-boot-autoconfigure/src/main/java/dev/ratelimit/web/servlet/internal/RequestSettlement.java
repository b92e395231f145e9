package dev.ratelimit.web.servlet.internal;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.web.AfterResponse;
import dev.ratelimit.web.internal.StatusCharge;

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
		List<StatusCharge> byStatus = new ArrayList<>(this.pending.charges().size());
		List<StatusCharge> rest = new ArrayList<>(this.pending.charges().size());
		for (StatusCharge charge : this.pending.charges()) {
			((charge.rule().costFrom() == null) ? byStatus : rest).add(charge);
		}
		if (byStatus.isEmpty()) {
			return AfterResponse.NONE;
		}
		this.pending = new AfterResponse(rest, this.pending.slots());
		return new AfterResponse(byStatus, List.of());
	}

	/** Takes everything still to settle. */
	synchronized AfterResponse takeAll() {
		AfterResponse all = this.pending;
		this.pending = AfterResponse.NONE;
		return all;
	}

}

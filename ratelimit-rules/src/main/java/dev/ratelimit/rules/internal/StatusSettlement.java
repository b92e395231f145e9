package dev.ratelimit.rules.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.rules.ResponseCost;

/**
 * Settles the charges requests took before their handlers ran: gives back those of {@code count-statuses} rules whose
 * response did not count, and adjusts the reservations of {@code cost-from} rules to their actual cost (the
 * difference charged, or the excess given back). One call per charge, every one tried, failures logged and never
 * thrown. For the {@link RateLimitEnforcer}.
 */
final class StatusSettlement {

	private final EnforcerLogs logs;

	StatusSettlement(EnforcerLogs logs) {
		this.logs = logs;
	}

	/**
	 * Gives back each charge's permits; synchronously (every refund answered before it returns) or not.
	 * @return completes when every refund is answered; never exceptionally
	 */
	public CompletableFuture<Void> refund(List<StatusCharge> charges, boolean async) {
		List<Long> deltas = new ArrayList<>(charges.size());
		for (StatusCharge charge : charges) {
			deltas.add(-charge.permits());
		}
		return apply(charges, deltas, async);
	}

	/**
	 * Settles charges once a response is complete: by its final status, and by the actual costs {@code costs} reads.
	 * @param charges the charges
	 * @param status the final status
	 * @param costs reads the actual cost of a {@code cost-from} rule's request
	 * @param async whether to hold no thread while Redis answers
	 * @return completes when every charge is settled; never exceptionally
	 */
	public CompletableFuture<Void> settle(List<StatusCharge> charges, int status, ResponseCost.Actual costs, boolean async) {
		List<StatusCharge> settled = new ArrayList<>(charges.size());
		List<Long> deltas = new ArrayList<>(charges.size());
		for (StatusCharge charge : charges) {
			if (charge.rule().costFrom() != null) {
				Long actual = costs.of(charge.rule());
				if (actual == null) {
					// no actual cost: the reservation stands
					this.logs.noActualCost(charge.rule());
				}
				else if (actual != charge.permits()) {
					settled.add(charge);
					deltas.add(actual - charge.permits());
				}
			}
			else if (!charge.counts(status)) {
				settled.add(charge);
				deltas.add(-charge.permits());
			}
		}
		return apply(settled, deltas, async);
	}

	private CompletableFuture<Void> apply(List<StatusCharge> charges, List<Long> deltas, boolean async) {
		CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
		for (int i = 0; i < charges.size(); i++) {
			StatusCharge charge = charges.get(i);
			long delta = deltas.get(i);
			if (delta == 0) {
				// a soft rule's request that reserved nothing, refused: nothing to give back
				continue;
			}
			CompletableFuture<Void> done;
			try {
				if (async) {
					done = (delta < 0) ? charge.limiter().refundAsync(charge.key(), charge.limits(), -delta)
							: charge.limiter().chargeAsync(charge.key(), charge.limits(), delta);
				}
				else {
					if (delta < 0) {
						charge.limiter().refund(charge.key(), charge.limits(), -delta);
					}
					else {
						charge.limiter().charge(charge.key(), charge.limits(), delta);
					}
					done = CompletableFuture.completedFuture(null);
				}
			}
			catch (RuntimeException ex) {
				done = CompletableFuture.failedFuture(ex);
			}
			all = all.thenCombine(done.handle((finished, failure) -> {
				if (failure != null && !(RateLimitEnforcer.unwrap(failure) instanceof RateLimiterUnavailableException)) {
					this.logs.unexpected(RateLimitEnforcer.unwrap(failure));
				}
				// Redis down: the permits stay as they were taken, which errs on the side of the limit (a charge past
				// the reservation is lost)
				return null;
			}), (first, second) -> null);
		}
		return all;
	}

}

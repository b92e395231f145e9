package dev.ratelimit.web.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.RateLimiterUnavailableException;

/**
 * Gives back the charges of {@code count-statuses} rules whose response did not count: one refund per
 * charge, every one tried, failures logged and never thrown. For the {@link RateLimitEnforcer}.
 */
public final class StatusSettlement {

	private final EnforcerLogs logs;

	StatusSettlement(EnforcerLogs logs) {
		this.logs = logs;
	}

	/**
	 * Gives back each charge's permits; synchronously (every refund answered before it returns) or not.
	 * @return completes when every refund is answered; never exceptionally
	 */
	public CompletableFuture<Void> refund(List<StatusCharge> charges, boolean async) {
		CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
		for (StatusCharge charge : charges) {
			CompletableFuture<Void> refunded;
			try {
				if (async) {
					refunded = charge.limiter().refundAsync(charge.key(), charge.limits(), charge.permits());
				}
				else {
					charge.limiter().refund(charge.key(), charge.limits(), charge.permits());
					refunded = CompletableFuture.completedFuture(null);
				}
			}
			catch (RuntimeException ex) {
				refunded = CompletableFuture.failedFuture(ex);
			}
			all = all.thenCombine(refunded.handle((done, failure) -> {
				if (failure != null && !(RateLimitEnforcer.unwrap(failure) instanceof RateLimiterUnavailableException)) {
					this.logs.unexpected(RateLimitEnforcer.unwrap(failure));
				}
				// Redis down: the permits stay taken, which errs on the side of the limit
				return null;
			}), (first, second) -> null);
		}
		return all;
	}

}

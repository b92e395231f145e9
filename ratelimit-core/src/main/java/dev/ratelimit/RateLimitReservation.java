package dev.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * An estimate of a cost known only once the work ran, reserved with {@link RateLimiter#reserve}: the estimate counts
 * against the key's budget from the reservation on, so that concurrent callers can never take more than the budget;
 * {@link #settle(long)} then charges the difference to the actual cost (past the limit if need be: the work is done),
 * or gives the excess back; {@link #cancel()} gives the whole estimate back. Settled at most once; a reservation not
 * settled within its lease keeps its estimate, and a later settlement changes nothing.
 *
 * <pre>{@code
 * RateLimitReservation tokens = limiter.reserve("user-42", List.of(RateLimit.of(100_000, Duration.ofDays(1))), 2_000,
 *         Duration.ofMinutes(5));
 * if (!tokens.granted()) {
 *     return tooManyTokens(tokens.decisions());
 * }
 * Completion answer = model.complete(prompt);
 * tokens.settle(answer.usage().totalTokens());
 * }</pre>
 *
 * @since 0.1.0
 */
public final class RateLimitReservation {

	private final RateLimiter limiter;

	private final String key;

	private final List<RateLimit> limits;

	private final long estimate;

	private final LongSupplier nanoTime;

	private final long deadline;

	private final List<RateLimitDecision> decisions;

	private final AtomicBoolean settled = new AtomicBoolean();

	RateLimitReservation(RateLimiter limiter, String key, List<RateLimit> limits, long estimate, Duration lease,
			List<RateLimitDecision> decisions) {
		this(limiter, key, limits, estimate, lease, decisions, System::nanoTime);
	}

	/** A reservation whose lease runs on a given monotonic clock, for tests. */
	RateLimitReservation(RateLimiter limiter, String key, List<RateLimit> limits, long estimate, Duration lease,
			List<RateLimitDecision> decisions, LongSupplier nanoTime) {
		this.limiter = limiter;
		this.key = key;
		this.limits = List.copyOf(limits);
		this.estimate = estimate;
		this.nanoTime = nanoTime;
		this.deadline = nanoTime.getAsLong() + Durations.saturatedNanos(lease);
		this.decisions = List.copyOf(decisions);
		if (!granted()) {
			// nothing was taken: nothing to settle
			this.settled.set(true);
		}
	}

	static void checkLease(Duration lease) {
		if (lease == null || lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException("lease must be positive, but was " + lease);
		}
	}

	/**
	 * Returns whether the estimate was taken: the work may start.
	 * @return {@code true} when every limit granted it
	 */
	public boolean granted() {
		for (RateLimitDecision decision : this.decisions) {
			if (!decision.allowed()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Returns the decisions of the reservation, one per limit: the remaining budget after the estimate, or when
	 * refused, when it could be granted.
	 * @return the decisions
	 */
	public List<RateLimitDecision> decisions() {
		return this.decisions;
	}

	/**
	 * Returns the permits reserved.
	 * @return the estimate
	 */
	public long estimate() {
		return this.estimate;
	}

	/**
	 * Returns the key whose budget is charged.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Returns whether the reservation was settled or cancelled (or was refused: it holds nothing to settle).
	 * @return {@code true} once settled
	 */
	public boolean settled() {
		return this.settled.get();
	}

	/**
	 * Settles the reservation with the actual cost: more than the estimate charges the difference, past the limits
	 * if need be; less gives the excess back. At most once, within the lease.
	 * @param actual the actual cost, from zero to {@link RateLimiter#MAX_COST}
	 * @return {@code true} when it was settled now; {@code false} when it was refused, settled already, or its lease
	 * ended (its estimate stands)
	 * @throws IllegalArgumentException when {@code actual} is negative or above {@link RateLimiter#MAX_COST}
	 * @throws RateLimiterUnavailableException when the limiter could not be asked (the estimate stands)
	 */
	public boolean settle(long actual) {
		try {
			return settleAsync(actual).join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	/**
	 * Settles the reservation as {@link #settle(long)} does, without making the caller wait for Redis.
	 * @param actual the actual cost, from zero to {@link RateLimiter#MAX_COST}
	 * @return completes with whether it was settled now, exceptionally with {@link RateLimiterUnavailableException}
	 * when the limiter could not be asked
	 * @throws IllegalArgumentException when {@code actual} is negative or above {@link RateLimiter#MAX_COST}
	 */
	public CompletableFuture<Boolean> settleAsync(long actual) {
		RateLimiter.checkCost("actual", actual, 0);
		if (this.nanoTime.getAsLong() - this.deadline > 0 || !this.settled.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(false);
		}
		long difference = actual - this.estimate;
		CompletableFuture<Void> done;
		try {
			done = (difference > 0) ? this.limiter.chargeAsync(this.key, this.limits, difference)
					: (difference < 0) ? this.limiter.refundAsync(this.key, this.limits, -difference)
							: CompletableFuture.completedFuture(null);
		}
		catch (RuntimeException ex) {
			done = CompletableFuture.failedFuture(ex);
		}
		return done.thenApply((ignored) -> true);
	}

	/**
	 * Gives the whole estimate back: the work did not run. At most once, within the lease.
	 * @return {@code true} when it was cancelled now
	 * @throws RateLimiterUnavailableException when the limiter could not be asked
	 */
	public boolean cancel() {
		return settle(0);
	}

	@Override
	public String toString() {
		return "RateLimitReservation[key=" + this.key + ", estimate=" + this.estimate + ", granted=" + granted()
				+ ", settled=" + settled() + "]";
	}

}

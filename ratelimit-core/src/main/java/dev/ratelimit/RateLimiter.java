package dev.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Decides whether a caller identified by a key may take permits under a {@link RateLimit}.
 *
 * @since 0.1.0
 */
public interface RateLimiter {

	/**
	 * The largest permit count or cost any entry point takes, 2^53 - 1: the Redis scripts count in Lua numbers
	 * (doubles), which hold every integer up to it exactly. Larger values are refused with an
	 * {@link IllegalArgumentException} naming the argument, before any remote call.
	 * @since 0.1.0
	 */
	long MAX_COST = (1L << 53) - 1;

	/**
	 * Tries to take one permit for {@code key} under {@code limit}.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @return the decision, with the figures for rate-limit headers
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	default RateLimitDecision tryAcquire(String key, RateLimit limit) {
		return tryAcquire(key, limit, 1);
	}

	/**
	 * Tries to take {@code permits} for {@code key} under {@code limit}, all or none.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @param permits how many permits to take, from 1 to the limit
	 * @return the decision, with the figures for rate-limit headers
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	default RateLimitDecision tryAcquire(String key, RateLimit limit, long permits) {
		if (limit == null) {
			throw new IllegalArgumentException("limit must not be null");
		}
		return tryAcquire(key, List.of(limit), permits).get(0);
	}

	/**
	 * Tries to take {@code permits} for {@code key} under every one of {@code limits} at once, all or
	 * nothing: when any limit refuses, no limit is charged.
	 * @param key whose budget is charged, any string
	 * @param limits the limits to enforce, with distinct windows
	 * @param permits how many permits to take, from 1 to the smallest limit (or burst)
	 * @return one decision per limit, in order; the call was granted only if every decision allows it,
	 * and the time until it could be granted is the longest {@code retryAfter}
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits);

	/**
	 * Tries to take one permit for {@code key} under {@code limit} without making the caller wait for
	 * Redis.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @return the decision
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @see #tryAcquireAsync(String, List, long)
	 */
	default CompletableFuture<RateLimitDecision> tryAcquireAsync(String key, RateLimit limit) {
		return tryAcquireAsync(key, limit, 1);
	}

	/**
	 * Tries to take {@code permits} for {@code key} under {@code limit}, all or none, without making the
	 * caller wait for Redis.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @param permits how many permits to take, from 1 to the limit
	 * @return the decision
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @see #tryAcquireAsync(String, List, long)
	 */
	default CompletableFuture<RateLimitDecision> tryAcquireAsync(String key, RateLimit limit, long permits) {
		if (limit == null) {
			throw new IllegalArgumentException("limit must not be null");
		}
		return tryAcquireAsync(key, List.of(limit), permits).thenApply((decisions) -> decisions.get(0));
	}

	/**
	 * Tries to take {@code permits} for {@code key} under every one of {@code limits}, all or nothing, as
	 * {@link #tryAcquire(String, List, long)} does, without making the caller wait: for reactive and
	 * other non-blocking callers. The Redis limiters hold no thread while Redis answers; this default
	 * decides in the calling thread, which suits limiters that make no remote call.
	 * @param key whose budget is charged, any string
	 * @param limits the limits to enforce, with distinct windows
	 * @param permits how many permits to take
	 * @return one decision per limit, in order; completed exceptionally with
	 * {@link RateLimiterUnavailableException} when no decision could be reached
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	default CompletableFuture<List<RateLimitDecision>> tryAcquireAsync(String key, List<RateLimit> limits,
			long permits) {
		return inCallingThread(() -> tryAcquire(key, limits, permits));
	}

	/**
	 * Takes {@code permits} for {@code key} under {@code limit}, waiting for them when they cannot be
	 * taken now, up to {@code maxWait}: for throttling calls out to a partner that allows so many per
	 * second across every instance. After a refusal it waits for the {@code retryAfter} it was told
	 * (no polling) and tries again; when that wait would end past {@code maxWait} it returns the refusal
	 * at once. An interrupted wait returns the last refusal, with the thread's interrupt flag set.
	 * @param key whose budget is charged, any string
	 * @param limit the limit to enforce
	 * @param permits how many permits to take, from 1 to the limit
	 * @param maxWait the longest this call may wait, zero or positive
	 * @return the granted decision, or the refusal when the permits could not be taken within
	 * {@code maxWait}
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws RateLimiterUnavailableException when no decision could be reached
	 */
	default RateLimitDecision acquire(String key, RateLimit limit, long permits, Duration maxWait) {
		if (maxWait == null || maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must be zero or positive, but was " + maxWait);
		}
		long deadline = System.nanoTime() + Durations.saturatedNanos(maxWait);
		while (true) {
			RateLimitDecision decision = tryAcquire(key, limit, permits);
			if (decision.allowed()) {
				return decision;
			}
			// at least a tenth of a millisecond, so that a refusal due at once cannot turn into a busy loop
			long wait = Math.max(Durations.saturatedNanos(decision.retryAfter()), 100_000);
			if (deadline - System.nanoTime() - wait < 0) {
				return decision;
			}
			try {
				TimeUnit.NANOSECONDS.sleep(wait);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return decision;
			}
		}
	}

	/**
	 * Returns the state of {@code key} under {@code limits} without taking anything: the permits
	 * remaining now, and whether (else when) a call for one would be granted.
	 * @param key whose state to read
	 * @param limits the limits
	 * @return one decision per limit
	 * @throws UnsupportedOperationException when the limiter cannot read its state
	 */
	default List<RateLimitDecision> inspect(String key, List<RateLimit> limits) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot read a key's state");
	}

	/**
	 * Returns the state of {@code key} under {@code limits} as {@link #inspect} does, without making the
	 * caller wait for Redis: for checking a budget before a call that is charged only afterwards, by its
	 * outcome. This default reads it in the calling thread.
	 * @param key whose state to read
	 * @param limits the limits
	 * @return one decision per limit, completed exceptionally when the state cannot be read
	 * @throws UnsupportedOperationException when the limiter cannot read its state
	 */
	default CompletableFuture<List<RateLimitDecision>> inspectAsync(String key, List<RateLimit> limits) {
		return inCallingThread(() -> inspect(key, limits));
	}

	/**
	 * Tells what a call for {@code permits} would be told now, taking nothing: for work charged only once
	 * its outcome is known, such as a login attempt charged when it fails. Unlike {@link #inspect} it is a
	 * decision: a limiter that {@link #blocking(BlockPolicy) blocks} refused keys starts a block when it
	 * refuses, and the Redis limiters answer a refusal they remember from their denial cache. This default
	 * inspects the state for one permit.
	 * @param key whose budget would be charged
	 * @param limits the limits
	 * @param permits how many permits the call would take
	 * @return one decision per limit
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws UnsupportedOperationException when the limiter cannot check without charging (this default,
	 * for more than one permit)
	 */
	default List<RateLimitDecision> check(String key, List<RateLimit> limits, long permits) {
		if (permits != 1) {
			throw new UnsupportedOperationException(getClass().getSimpleName() + " can check for one permit only");
		}
		return inspect(key, limits);
	}

	/**
	 * Tells what a call for {@code permits} would be told, as {@link #check} does, without making the
	 * caller wait for Redis. This default checks in the calling thread.
	 * @param key whose budget would be charged
	 * @param limits the limits
	 * @param permits how many permits the call would take
	 * @return one decision per limit, completed exceptionally when no decision could be reached
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws UnsupportedOperationException when the limiter cannot check without charging
	 */
	default CompletableFuture<List<RateLimitDecision>> checkAsync(String key, List<RateLimit> limits, long permits) {
		return inCallingThread(() -> check(key, limits, permits));
	}

	/**
	 * Gives back {@code permits} that a granted call for {@code key} took under {@code limits}: for work
	 * charged before it runs, so that concurrent calls can never take more than the budget, that turns out
	 * not to count once it ended (a rule that counts only failed responses charges every request first and
	 * refunds those that succeeded). The budget moves back as if the call had taken nothing, never past full;
	 * a key whose state is gone (expired, reset) is left alone. The Redis limiters also forget the refusals
	 * this instance remembers for the key.
	 * @param key whose budget to give back to
	 * @param limits the limits the call was granted under
	 * @param permits how many permits it took
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws UnsupportedOperationException when the limiter cannot give permits back (this default)
	 * @since 0.1.0
	 */
	default void refund(String key, List<RateLimit> limits, long permits) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot give permits back");
	}

	/**
	 * Gives permits back as {@link #refund} does, without making the caller wait for Redis. This default
	 * refunds in the calling thread.
	 * @param key whose budget to give back to
	 * @param limits the limits the call was granted under
	 * @param permits how many permits it took
	 * @return completes when the permits are back, exceptionally when Redis could not take them
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws UnsupportedOperationException when the limiter cannot give permits back
	 * @since 0.1.0
	 */
	default CompletableFuture<Void> refundAsync(String key, List<RateLimit> limits, long permits) {
		return inCallingThread(() -> {
			refund(key, limits, permits);
			return null;
		});
	}

	/**
	 * Takes {@code permits} for {@code key} under {@code limits} whatever the budget holds: for work whose cost is
	 * known only once it ran (a reservation whose actual cost is more than its estimate). The work is done, so its
	 * cost counts even past the limit; the key is then refused until its budget has recovered.
	 * @param key whose budget to charge
	 * @param limits the limits
	 * @param permits how many permits to take, at least 1 (more than a limit is allowed)
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws UnsupportedOperationException when the limiter cannot charge past its limits (this default)
	 * @since 0.1.0
	 */
	default void charge(String key, List<RateLimit> limits, long permits) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot charge past its limits");
	}

	/**
	 * Takes permits as {@link #charge} does, without making the caller wait for Redis. This default charges in the
	 * calling thread.
	 * @param key whose budget to charge
	 * @param limits the limits
	 * @param permits how many permits to take, at least 1
	 * @return completes when the permits are taken, exceptionally when Redis could not take them
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws UnsupportedOperationException when the limiter cannot charge past its limits
	 * @since 0.1.0
	 */
	default CompletableFuture<Void> chargeAsync(String key, List<RateLimit> limits, long permits) {
		return inCallingThread(() -> {
			charge(key, limits, permits);
			return null;
		});
	}

	/**
	 * Reserves an estimate of a cost known only once the work ran (an LLM call's tokens, bytes streamed, rows
	 * scanned): {@code estimate} permits are taken now, all or nothing, as {@link #tryAcquire(String, List, long)}
	 * takes them, so that concurrent callers can never take more than the budget; the reservation is then settled with
	 * the actual cost ({@link RateLimitReservation#settle}: the difference is charged, or given back) or cancelled. One
	 * never settled within {@code lease} keeps its estimate.
	 * @param key whose budget is charged
	 * @param limits the limits
	 * @param estimate the permits to reserve, from 1 to the smallest limit (or burst)
	 * @param lease how long the reservation may be settled
	 * @return the reservation; {@link RateLimitReservation#granted()} tells whether the estimate was taken
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws RateLimiterUnavailableException when no decision could be reached
	 * @since 0.1.0
	 */
	default RateLimitReservation reserve(String key, List<RateLimit> limits, long estimate, Duration lease) {
		RateLimitReservation.checkLease(lease);
		return new RateLimitReservation(this, key, limits, estimate, lease, tryAcquire(key, limits, estimate));
	}

	/**
	 * Reserves an estimate as {@link #reserve} does, without making the caller wait for Redis.
	 * @param key whose budget is charged
	 * @param limits the limits
	 * @param estimate the permits to reserve
	 * @param lease how long the reservation may be settled
	 * @return the reservation, completed exceptionally with {@link RateLimiterUnavailableException} when no decision
	 * could be reached
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @since 0.1.0
	 */
	default CompletableFuture<RateLimitReservation> reserveAsync(String key, List<RateLimit> limits, long estimate,
			Duration lease) {
		RateLimitReservation.checkLease(lease);
		return tryAcquireAsync(key, limits, estimate)
			.thenApply((decisions) -> new RateLimitReservation(this, key, limits, estimate, lease, decisions));
	}

	/**
	 * Tries to take a slot of work in flight for {@code key}: at most {@code limit} slots of a key are held at
	 * once, each until it is {@linkplain RateLimitSlot#close() closed} or its {@code lease} ends without a
	 * {@linkplain RateLimitSlot#renew() renewal}. The Redis limiters hold slots in Redis, so that the limit holds
	 * across every instance, and the slots of an instance that crashed come back when their leases end.
	 * @param key whose slots are counted, any string
	 * @param limit how many slots a key may hold at once, at least 1
	 * @param lease how long a slot is held without a renewal, from 1 ms
	 * @return the slot; {@link RateLimitSlot#acquired()} tells whether it was granted
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws RateLimiterUnavailableException when no decision could be reached
	 * @throws UnsupportedOperationException when the limiter cannot hold slots (this default)
	 * @since 0.1.0
	 */
	default RateLimitSlot tryAcquireSlot(String key, long limit, Duration lease) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot hold slots of work in flight");
	}

	/**
	 * Tries to take a slot of work in flight as {@link #tryAcquireSlot} does, without making the caller wait for
	 * Redis. This default takes it in the calling thread.
	 * @param key whose slots are counted, any string
	 * @param limit how many slots a key may hold at once, at least 1
	 * @param lease how long a slot is held without a renewal, from 1 ms
	 * @return the slot, completed exceptionally with {@link RateLimiterUnavailableException} when no decision could
	 * be reached
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws UnsupportedOperationException when the limiter cannot hold slots
	 * @since 0.1.0
	 */
	default CompletableFuture<RateLimitSlot> tryAcquireSlotAsync(String key, long limit, Duration lease) {
		return inCallingThread(() -> tryAcquireSlot(key, limit, lease));
	}

	/**
	 * Holds a slot this limiter granted for another lease from now: what {@link RateLimitSlot#renewAsync()} calls. A
	 * slot whose lease had ended is taken back all the same, past the limit if need be (its holder still works), so
	 * that no new slot is granted until the key is under its limit again.
	 * @param slot the slot
	 * @return completes with whether the slot was held until this renewal ({@code false} when its lease had ended
	 * and it was taken back), exceptionally with {@link RateLimiterUnavailableException} when the limiter could not
	 * be asked
	 * @throws UnsupportedOperationException when the limiter cannot hold slots (this default)
	 * @since 0.1.0
	 */
	default CompletableFuture<Boolean> renewSlotAsync(RateLimitSlot slot) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot hold slots of work in flight");
	}

	/**
	 * Gives back a slot this limiter granted: what {@link RateLimitSlot#releaseAsync()} calls, once per slot.
	 * @param slot the slot
	 * @return completes when given back, exceptionally with {@link RateLimiterUnavailableException} when the
	 * limiter could not be asked
	 * @throws UnsupportedOperationException when the limiter cannot hold slots (this default)
	 * @since 0.1.0
	 */
	default CompletableFuture<Void> releaseSlotAsync(RateLimitSlot slot) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot hold slots of work in flight");
	}

	/**
	 * Returns a limiter that decides as this one does and blocks the keys it refuses: from a refusal on,
	 * every call for the key is refused, without being charged, until the block ends ({@code policy}).
	 * The Redis limiters keep blocks in Redis, so that every instance refuses the key.
	 * @param policy how long blocks last
	 * @return the blocking limiter
	 * @throws UnsupportedOperationException when the limiter cannot block keys
	 */
	default BlockingRateLimiter blocking(BlockPolicy policy) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot block keys");
	}

	/**
	 * Puts {@code key} back to full under {@code limits}, for example for support staff unblocking a
	 * customer.
	 * @param key whose state to delete
	 * @param limits the limits
	 * @return how many stored entries were deleted
	 * @throws UnsupportedOperationException when the limiter cannot reset a key
	 */
	default long reset(String key, List<RateLimit> limits) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot reset a key");
	}

	/**
	 * Returns the algorithm this limiter implements.
	 * @return the algorithm
	 */
	Algorithm algorithm();

	/**
	 * Checks a permit count or cost that an entry point takes: for implementations, so that every limiter refuses
	 * the same values with the same message.
	 * @param argument the argument's name, such as {@code permits} or {@code actual}
	 * @param cost the value
	 * @param least the smallest value the entry point takes, 0 or 1
	 * @return {@code cost}
	 * @throws InvalidRateLimitException naming {@code argument} when {@code cost} lies outside {@code least} to
	 * {@link #MAX_COST}
	 * @since 0.1.0
	 */
	static long checkCost(String argument, long cost, long least) {
		if (cost < least || cost > MAX_COST) {
			throw new InvalidRateLimitException(argument, -1, "must be between " + least + " and " + MAX_COST
					+ ", but was " + cost + " (RateLimiter.MAX_COST, 2^53 - 1, is the largest integer the scripts "
					+ "count exactly; a larger cost would not be counted as it is)");
		}
		return cost;
	}

	/**
	 * Runs a call in the calling thread as a completed future: invalid arguments and unsupported
	 * operations are thrown at once, as the asynchronous methods promise; other failures complete it
	 * exceptionally.
	 */
	private static <T> CompletableFuture<T> inCallingThread(Supplier<T> call) {
		T result;
		try {
			result = call.get();
		}
		catch (IllegalArgumentException | UnsupportedOperationException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return CompletableFuture.completedFuture(result);
	}

}

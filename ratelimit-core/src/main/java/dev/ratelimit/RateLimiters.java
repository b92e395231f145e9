package dev.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Decides calls of several limiters all or nothing in one round trip, where the limiters can: when one call
 * would be refused, none is charged. The Redis limiters on one script runner can (not on a Redis Cluster,
 * whose keys of several callers may lie on several slots); any other limiter is decided alone.
 *
 * @since 0.1.0
 */
public final class RateLimiters {

	private RateLimiters() {
	}

	/**
	 * Returns whether calls of these limiters can be decided together.
	 * @param limiters the limiters, in the order of the calls
	 * @return {@code true} when {@link #tryAcquireTogether} takes calls of them
	 */
	public static boolean canDecideTogether(List<? extends RateLimiter> limiters) {
		return !limiters.isEmpty() && limiters.get(0) instanceof Together first && first.decidesTogetherWith(limiters);
	}

	/**
	 * Decides calls all or nothing in one round trip.
	 * @param calls the calls, of limiters {@link #canDecideTogether} accepts
	 * @return the decisions of the calls up to the first that is refused (all of them when every one is
	 * granted)
	 * @throws IllegalArgumentException when an argument is invalid, or the limiters cannot decide together
	 * @throws RateLimiterUnavailableException when no decision could be reached
	 */
	public static List<List<RateLimitDecision>> tryAcquireTogether(List<Call> calls) {
		return first(calls).tryAcquireTogether(calls);
	}

	/**
	 * Decides calls all or nothing in one round trip, without holding the caller's thread meanwhile.
	 * @param calls the calls, of limiters {@link #canDecideTogether} accepts
	 * @return the decisions, as {@link #tryAcquireTogether} returns them, completed exceptionally with
	 * {@link RateLimiterUnavailableException} when no decision could be reached
	 * @throws IllegalArgumentException when an argument is invalid, or the limiters cannot decide together
	 */
	public static CompletableFuture<List<List<RateLimitDecision>>> tryAcquireTogetherAsync(List<Call> calls) {
		return first(calls).tryAcquireTogetherAsync(calls);
	}

	private static Together first(List<Call> calls) {
		Assert.notEmpty(calls, "calls must not be empty");
		if (!(calls.get(0).limiter() instanceof Together first)
				|| !first.decidesTogetherWith(calls.stream().map(Call::limiter).toList())) {
			throw new IllegalArgumentException("calls must be of limiters that decide together; check canDecideTogether");
		}
		return first;
	}

	/**
	 * One call of several decided together: permits under limits, or a slot of work in flight
	 * ({@link #slot(RateLimiter, String, long, Duration)}).
	 *
	 * @param limiter the limiter
	 * @param key whose budget it charges
	 * @param limits the limits; for a slot, one: the slots a key may hold and their lease
	 * @param permits how many permits it takes; 1 for a slot
	 * @param slotId the id of the slot it takes, or {@code null} for a call that takes permits
	 */
	public record Call(RateLimiter limiter, String key, List<RateLimit> limits, long permits, @Nullable String slotId) {

		/**
		 * Creates a call that takes permits.
		 * @param limiter the limiter
		 * @param key whose budget it charges
		 * @param limits the limits
		 * @param permits how many permits it takes
		 */
		public Call(RateLimiter limiter, String key, List<RateLimit> limits, long permits) {
			this(limiter, key, limits, permits, null);
		}

		/**
		 * Returns a call that takes a slot of work in flight, as {@link RateLimiter#tryAcquireSlot} does.
		 * @param limiter the limiter
		 * @param key whose slots are counted
		 * @param limit how many slots a key may hold at once
		 * @param lease how long a slot is held without a renewal
		 * @return the call; {@link #slot(List)} turns its decision into the slot
		 * @throws IllegalArgumentException when an argument is invalid
		 */
		public static Call slot(RateLimiter limiter, String key, long limit, Duration lease) {
			return new Call(limiter, key, List.of(RateLimitSlot.concurrency(limit, lease)), 1, RateLimitSlot.newId());
		}

		/**
		 * Returns whether this call takes a slot of work in flight.
		 * @return {@code true} for a call made by {@link #slot(RateLimiter, String, long, Duration)}
		 */
		public boolean takesSlot() {
			return this.slotId != null;
		}

		/**
		 * Returns the slot this call took, from its decisions: held when granted.
		 * @param decisions the call's decisions, as {@link RateLimiters#tryAcquireTogether} returned them
		 * @return the slot
		 * @throws IllegalStateException when this call takes no slot
		 */
		public RateLimitSlot slot(List<RateLimitDecision> decisions) {
			String id = this.slotId;
			if (id == null) {
				throw new IllegalStateException("this call takes permits, not a slot");
			}
			RateLimitDecision decision = decisions.get(0);
			return decision.allowed() ? RateLimitSlot.held(this.limiter, this.key, this.limits.get(0), id, decision)
					: RateLimitSlot.unheld(this.key, this.limits.get(0), decision);
		}

	}

	/**
	 * What a limiter implements to decide calls of itself and of others together; the first call's limiter
	 * decides them all.
	 */
	public interface Together {

		/**
		 * Returns whether this limiter can decide calls of these limiters together, this one's first.
		 * @param limiters the limiters of the calls, in order
		 * @return {@code true} when it can
		 */
		boolean decidesTogetherWith(List<? extends RateLimiter> limiters);

		/**
		 * Decides calls all or nothing in one round trip.
		 * @param calls the calls, of limiters this one decides together with
		 * @return the decisions of the calls up to the first refused
		 */
		List<List<RateLimitDecision>> tryAcquireTogether(List<Call> calls);

		/**
		 * Decides calls all or nothing in one round trip, without holding the caller's thread.
		 * @param calls the calls, of limiters this one decides together with
		 * @return the decisions of the calls up to the first refused
		 */
		CompletableFuture<List<List<RateLimitDecision>>> tryAcquireTogetherAsync(List<Call> calls);

	}

}

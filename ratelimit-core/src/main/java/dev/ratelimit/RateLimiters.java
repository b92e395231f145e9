package dev.ratelimit;

import java.util.List;
import java.util.concurrent.CompletableFuture;

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
	 * One call of several decided together.
	 *
	 * @param limiter the limiter
	 * @param key whose budget it charges
	 * @param limits the limits
	 * @param permits how many permits it takes
	 */
	public record Call(RateLimiter limiter, String key, List<RateLimit> limits, long permits) {
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

package dev.ratelimit;

import java.time.Duration;

/**
 * A limiter that blocks the keys it refuses for a while, as its {@link BlockPolicy} says: while a key is
 * blocked every call for it is refused, and nothing is charged. Blocks can also be read, set and lifted
 * by hand, for operators. Get one from {@link RateLimiter#blocking(BlockPolicy)}.
 *
 * @since 0.1.0
 */
public interface BlockingRateLimiter extends RateLimiter {

	/**
	 * Returns how long blocks last.
	 * @return the policy
	 */
	BlockPolicy blockPolicy();

	/**
	 * Returns how long {@code key} stays blocked.
	 * @param key the caller's key
	 * @return the time left of its block, {@link Duration#ZERO} when it is not blocked
	 * @throws RateLimiterUnavailableException when the block cannot be read
	 */
	Duration blockedFor(String key);

	/**
	 * Blocks {@code key} for {@code duration} from now, replacing any block it has.
	 * @param key the caller's key
	 * @param duration how long, from 1 ms to {@link RateLimit#MAX_WINDOW}
	 * @throws IllegalArgumentException when the duration is out of range
	 * @throws RateLimiterUnavailableException when the block cannot be set
	 */
	void block(String key, Duration duration);

	/**
	 * Lifts the block of {@code key}, if it has one, and forgets that it had one: its next refusal starts
	 * a first block. Other instances may refuse the key from their own memory until the retry time they
	 * were given.
	 * @param key the caller's key
	 * @return whether there was a block (or a past one still remembered) to lift
	 * @throws RateLimiterUnavailableException when the block cannot be lifted
	 */
	boolean unblock(String key);

}

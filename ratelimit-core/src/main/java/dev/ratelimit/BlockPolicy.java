package dev.ratelimit;

import java.time.Duration;

/**
 * How long a key stays refused once a limiter refuses it: {@code blockFor} from the refusal, on every
 * instance, whatever its limits would say meanwhile. A key refused again within {@code blockFor} of the
 * end of its previous block (a repeat offender) is blocked {@code multiplier} times as long as that
 * block was, up to {@code max}.
 *
 * @param blockFor how long a first block lasts, from 1 ms to {@link RateLimit#MAX_WINDOW}
 * @param multiplier how much longer each block that follows within {@code blockFor} of the previous one
 * lasts, at least 1 (1 for blocks of one length)
 * @param max the longest a block lasts, at least {@code blockFor} and at most {@link RateLimit#MAX_WINDOW}
 * @see RateLimiter#blocking(BlockPolicy)
 * @since 0.1.0
 */
public record BlockPolicy(Duration blockFor, double multiplier, Duration max) {

	/**
	 * Checks the policy.
	 * @throws InvalidRateLimitException naming the argument at fault ({@code blockFor},
	 * {@code multiplier} or {@code max}) when one is out of range
	 */
	public BlockPolicy {
		check("blockFor", blockFor);
		if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
			throw new InvalidRateLimitException("multiplier", -1,
					"must be a finite number of at least 1 (1 for blocks of one length), but was " + multiplier);
		}
		check("max", max);
		if (max.compareTo(blockFor) < 0) {
			throw new InvalidRateLimitException("max", -1, "must be at least blockFor (" + RateLimit.label(blockFor)
					+ "), but was " + RateLimit.label(max));
		}
	}

	/**
	 * Returns a policy whose blocks all last {@code blockFor}.
	 * @param blockFor how long a block lasts
	 * @return the policy
	 */
	public static BlockPolicy of(Duration blockFor) {
		return new BlockPolicy(blockFor, 1, blockFor);
	}

	private static void check(String argument, Duration duration) {
		if (duration == null) {
			throw new InvalidRateLimitException(argument, -1, "must not be null");
		}
		if (duration.compareTo(RateLimit.MIN_WINDOW) < 0 || duration.compareTo(RateLimit.MAX_WINDOW) > 0) {
			throw new InvalidRateLimitException(argument, -1, "must be from 1ms to 36500d, but was "
					+ (duration.isNegative() ? duration.toString() : RateLimit.label(duration)));
		}
	}

}

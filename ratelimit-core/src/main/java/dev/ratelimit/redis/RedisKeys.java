package dev.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimit;

/**
 * Every key format of a Redis limiter, in one place: the Redis keys a script touches and the keys of the
 * local denial cache. Caller-chosen ids map to their own bounded, inert key segment
 * ({@link RateLimitKeys#segment}); the local fallback's keys are {@link RateLimitKeys#local}.
 *
 * @since 0.1.0
 */
public final class RedisKeys {

	private final String prefix;

	private final String kind;

	private final boolean alwaysTagged;

	/** {@code <prefix>:<kind>:}, the start of every Redis key, built once. */
	private final String start;

	/** {@code <prefix>:<kind>\0}, the start of every denial-cache key, built once. */
	private final String denialStart;

	/**
	 * Creates the keys of one limiter.
	 * @param prefix the first segment of every key, such as {@code rate}
	 * @param kind the algorithm's segment, such as {@code fixed}
	 */
	RedisKeys(String prefix, String kind) {
		this(prefix, kind, false);
	}

	private RedisKeys(String prefix, String kind, boolean alwaysTagged) {
		this.prefix = checkPrefix(prefix);
		this.kind = kind;
		this.alwaysTagged = alwaysTagged;
		this.start = this.prefix + ":" + this.kind + ":";
		// a blocking limiter's keys hold other state than a plain one's under the same id: so do its denials
		this.denialStart = this.prefix + ":" + this.kind + (alwaysTagged ? ":{}" : "") + "\u0000";
	}

	/**
	 * Returns the keys of a limiter that blocks refused keys: a key's state under one limit too is
	 * {@code <prefix>:<kind>:{<segment>}:<window>}, so that it shares a Cluster slot with the key's
	 * {@link #block(String) block}.
	 */
	RedisKeys blocking() {
		return new RedisKeys(this.prefix, this.kind, true);
	}

	/**
	 * Returns the Redis key of {@code id} under one limit: {@code <prefix>:<kind>:<segment>}, the seed's
	 * format.
	 */
	String single(String id) {
		return this.start + RateLimitKeys.segment(id);
	}

	/**
	 * Returns the Redis keys of {@code id} under {@code limits}: the seed's key for one limit; for several,
	 * {@code <prefix>:<kind>:{<segment>}:<window>}, sharing a hash tag so that one script call stays on
	 * one Cluster slot.
	 */
	List<String> forLimits(String id, List<RateLimit> limits) {
		if (limits.size() == 1 && !this.alwaysTagged) {
			return List.of(single(id));
		}
		String tagged = this.start + "{" + RateLimitKeys.segment(id) + "}:";
		List<String> keys = new ArrayList<>(limits.size());
		for (RateLimit limit : limits) {
			keys.add(tagged + limit.windowLabel());
		}
		return keys;
	}

	/**
	 * Returns the Redis key of {@code id}'s block, {@code <prefix>:<kind>:{<segment>}:block}: on the
	 * Cluster slot of its state under any limits of a {@link #blocking() blocking} limiter.
	 */
	String block(String id) {
		return this.start + "{" + RateLimitKeys.segment(id) + "}:block";
	}

	/**
	 * Returns the local denial cache's key of {@code id} under {@code limits}: it starts with
	 * {@link #denialPrefix(String)} and names every limit. Bounded like the Redis key: a 10 KB id costs
	 * the cache no more than a short one.
	 */
	String denial(String id, List<RateLimit> limits) {
		return denial(id, denialSuffix(limits));
	}

	/**
	 * Returns the local denial cache's key of {@code id} under limits whose {@link #denialSuffix} is
	 * given.
	 */
	String denial(String id, String limitsSuffix) {
		return denialPrefix(id).concat(limitsSuffix);
	}

	/**
	 * Returns what the denial cache's keys under {@code limits} end with: every limit, named.
	 */
	static String denialSuffix(List<RateLimit> limits) {
		StringBuilder builder = new StringBuilder();
		for (RateLimit limit : limits) {
			builder.append(limit.limit()).append('/').append(limit.window().toNanos()).append('/')
				.append(limit.burst()).append('\u0000');
		}
		return builder.toString();
	}

	/**
	 * Returns what the denial cache keys of {@code id} under any limits start with.
	 */
	String denialPrefix(String id) {
		return this.denialStart + RateLimitKeys.segment(id) + "\u0000";
	}

	/**
	 * Checks a key prefix chosen in configuration.
	 * @param prefix the prefix
	 * @return the prefix
	 * @throws IllegalArgumentException when it is null, empty, or not plain characters
	 */
	public static String checkPrefix(String prefix) {
		if (prefix == null || !RateLimitKeys.isPlain(prefix)) {
			throw new IllegalArgumentException(
					"keyPrefix must be 1 to 128 letters, digits or . _ : @ / + = -, but was '" + prefix + "'");
		}
		return prefix;
	}

}

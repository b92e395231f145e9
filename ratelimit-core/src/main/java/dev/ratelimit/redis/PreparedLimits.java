package dev.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;

/**
 * What a list of limits gives each call of a limiter, worked out the first time the limiter meets the
 * list instead of on every call: the limits checked, the script's arguments for them, and the end of
 * the denial cache's keys. A limiter keeps at most {@value #MAX_LISTS} lists (rules and plans make a
 * few; limits computed per call, many more, and those start the memory afresh when it is full).
 */
final class PreparedLimits {

	static final int MAX_LISTS = 1024;

	private final Algorithm algorithm;

	private final ConcurrentHashMap<List<RateLimit>, Prepared> lists = new ConcurrentHashMap<>();

	PreparedLimits(Algorithm algorithm) {
		this.algorithm = algorithm;
	}

	/**
	 * Returns the prepared form of {@code limits}, checking them and {@code permits} as
	 * {@link Algorithm#check(List, long)} does.
	 * @throws dev.ratelimit.InvalidRateLimitException naming the argument at fault
	 */
	Prepared of(List<RateLimit> limits, long permits) {
		Prepared prepared = (limits != null) ? this.lists.get(limits) : null;
		if (prepared == null) {
			this.algorithm.check(limits, permits);
			prepared = prepare(limits);
			if (this.lists.size() >= MAX_LISTS) {
				this.lists.clear();
			}
			// a copy: the caller may change its list afterwards
			this.lists.put(List.copyOf(limits), prepared);
		}
		else if (permits < 1 || permits > prepared.maxPermits()) {
			// throws, with the message naming the limit
			this.algorithm.check(limits, permits);
		}
		return prepared;
	}

	/** Returns how many lists are kept. */
	int size() {
		return this.lists.size();
	}

	private Prepared prepare(List<RateLimit> limits) {
		List<String> args = new ArrayList<>(3 * limits.size());
		long maxPermits = Long.MAX_VALUE;
		for (RateLimit limit : limits) {
			// the token bucket and GCRA count in the rate only: long windows in coarser units (see rateScale)
			long scale = this.algorithm.rateScale(limit);
			args.add(Long.toString(limit.limit() / scale));
			args.add(Long.toString(limit.windowMicros() / scale));
			args.add(Long.toString(limit.burst()));
			maxPermits = Math.min(maxPermits, limit.burst());
		}
		return new Prepared(maxPermits, List.copyOf(args), RedisKeys.denialSuffix(limits));
	}

	/**
	 * A list of limits, prepared.
	 * @param maxPermits the most permits a call may take (the smallest burst)
	 * @param args the script's arguments for the limits: limit, window in µs and burst of each
	 * @param denialSuffix what the denial cache's keys under these limits end with
	 */
	record Prepared(long maxPermits, List<String> args, String denialSuffix) {
	}

}

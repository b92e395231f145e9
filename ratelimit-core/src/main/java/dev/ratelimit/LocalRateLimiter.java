package dev.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A rate limiter in this JVM's memory: a fixed window per key and limit, opened by the key's first
 * permit, whatever the algorithm asked for. Used as the {@code local} failure mode while Redis is
 * unavailable, so that each instance still enforces every limit on its own. Memory is bounded: past
 * {@code maxKeys} the least recently used key is evicted.
 */
public final class LocalRateLimiter implements RateLimiter {

	private final int maxKeys;

	private final LongSupplier nanoTime;

	private final Map<String, long[]> windows;

	/**
	 * Creates a limiter on the system's monotonic clock.
	 * @param maxKeys how many key-and-limit windows to keep at most, at least 1
	 */
	public LocalRateLimiter(int maxKeys) {
		this(maxKeys, System::nanoTime);
	}

	/**
	 * Creates a limiter on a given monotonic clock, for tests.
	 * @param maxKeys how many key-and-limit windows to keep at most, at least 1
	 * @param nanoTime the clock, in nanoseconds
	 */
	public LocalRateLimiter(int maxKeys, LongSupplier nanoTime) {
		if (maxKeys < 1) {
			throw new IllegalArgumentException("maxKeys must be at least 1, but was " + maxKeys);
		}
		this.maxKeys = maxKeys;
		this.nanoTime = nanoTime;
		this.windows = new LinkedHashMap<>(16, 0.75f, true) {
			@Override
			protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
				return size() > LocalRateLimiter.this.maxKeys;
			}
		};
	}

	@Override
	public List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits) {
		return decide(key, limits, permits, true);
	}

	/**
	 * Tells what a call for {@code permits} would be told now, taking nothing.
	 */
	@Override
	public List<RateLimitDecision> check(String key, List<RateLimit> limits, long permits) {
		return decide(key, limits, permits, false);
	}

	/**
	 * Gives back permits a granted call took, in the windows the key holds now (never below none).
	 */
	@Override
	public void refund(String key, List<RateLimit> limits, long permits) {
		if (key == null || limits == null || permits < 1) {
			throw new IllegalArgumentException("key, limits and at least 1 permit are needed to refund");
		}
		synchronized (this.windows) {
			for (RateLimit limit : limits) {
				long[] state = this.windows.get(key + "\u0000" + limit.window().toNanos());
				if (state != null) {
					state[1] = Math.max(state[1] - permits, 0);
				}
			}
		}
	}

	private List<RateLimitDecision> decide(String key, List<RateLimit> limits, long permits, boolean charge) {
		if (key == null) {
			throw new IllegalArgumentException("key must not be null");
		}
		if (limits == null || limits.isEmpty()) {
			throw new IllegalArgumentException("limits must hold at least one limit");
		}
		if (permits < 1) {
			throw new IllegalArgumentException("permits must be at least 1, but was " + permits);
		}
		long now = this.nanoTime.getAsLong();
		List<RateLimitDecision> decisions = new ArrayList<>(limits.size());
		synchronized (this.windows) {
			List<long[]> states = new ArrayList<>(limits.size());
			boolean granted = true;
			for (RateLimit limit : limits) {
				long[] state = this.windows.computeIfAbsent(key + "\u0000" + limit.window().toNanos(),
						(k) -> new long[] { now, 0 });
				if (now - state[0] >= limit.window().toNanos()) {
					state[0] = now;
					state[1] = 0;
				}
				states.add(state);
				granted &= state[1] + permits <= limit.limit();
			}
			for (int i = 0; i < limits.size(); i++) {
				RateLimit limit = limits.get(i);
				long[] state = states.get(i);
				boolean admits = state[1] + permits <= limit.limit();
				if (granted && charge) {
					state[1] += permits;
				}
				Duration windowLeft = Duration.ofNanos(state[0] + limit.window().toNanos() - now);
				long remaining = Math.max(limit.limit() - state[1], 0);
				Duration resetAfter = (state[1] > 0) ? windowLeft : Duration.ZERO;
				decisions.add(admits ? RateLimitDecision.allowed(limit.limit(), remaining, resetAfter)
						: RateLimitDecision.rejected(limit.limit(), remaining, windowLeft, resetAfter));
			}
		}
		return decisions;
	}

	/**
	 * Returns how many key-and-limit windows are held.
	 * @return the count, at most {@code maxKeys}
	 */
	public int size() {
		synchronized (this.windows) {
			return this.windows.size();
		}
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.FIXED_WINDOW;
	}

}

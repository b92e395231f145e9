package dev.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * A rate limiter in this JVM's memory: a fixed window per key and limit, opened by the key's first
 * permit, whatever the algorithm asked for. Used as the {@code local} failure mode while Redis is
 * unavailable, so that each instance still enforces every limit on its own. Memory is bounded in entries
 * ({@code maxKeys}) and in bytes: a long or unusual key is held as its SHA-256 ({@link RateLimitKeys#segment}),
 * as Redis keys are. Past {@code maxKeys}, a window that is over goes first, then one that still grants
 * permits, the least
 * recently used first; a window whose budget is spent, which refuses its key, goes only when the
 * {@value #EVICTION_SCAN} least recently used windows are all spent: a flood of made-up keys cannot buy a
 * refused client a fresh window.
 *
 * @since 0.1.0
 */
public final class LocalRateLimiter implements RateLimiter {

	/** How many of the least recently used windows eviction looks at for one to drop. */
	static final int EVICTION_SCAN = 64;

	/** The longest a refused slot is told to wait. */
	private static final Duration SLOT_RETRY = Duration.ofSeconds(1);

	private final int maxKeys;

	private final LongSupplier nanoTime;

	/** Slots of work in flight by key, least recently used first: the end of each slot's lease (nanoTime) by id. */
	private final LinkedHashMap<String, Map<String, Long>> slots = new LinkedHashMap<>(16, 0.75f, true);

	/** Windows by key and limit, least recently used first: {start, permits taken, limit, window in ns}. */
	private final LinkedHashMap<String, long[]> windows = new LinkedHashMap<>(16, 0.75f, true);

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
		if (key == null || limits == null) {
			throw new IllegalArgumentException("key and limits are needed to refund");
		}
		RateLimiter.checkCost("permits", permits, 1);
		synchronized (this.windows) {
			for (RateLimit limit : limits) {
				long[] state = this.windows.get(windowKey(key, limit));
				if (state != null) {
					state[1] = Math.max(state[1] - permits, 0);
				}
			}
		}
	}

	/**
	 * Takes permits in the windows the key holds now (opening them), whatever they hold: past the limit if need be.
	 */
	@Override
	public void charge(String key, List<RateLimit> limits, long permits) {
		if (key == null || limits == null || limits.isEmpty()) {
			throw new IllegalArgumentException("key and limits are needed to charge");
		}
		RateLimiter.checkCost("permits", permits, 1);
		long now = this.nanoTime.getAsLong();
		synchronized (this.windows) {
			for (RateLimit limit : limits) {
				long[] state = window(windowKey(key, limit), limit, now);
				if (now - state[0] >= state[3]) {
					state[0] = now;
					state[1] = 0;
				}
				// both at most MAX_COST: the sum cannot overflow, and a count that high refuses until the window ends
				state[1] = Math.min(state[1] + permits, MAX_COST);
			}
		}
	}

	/**
	 * Takes a slot of work in flight in this instance's memory: a key's slots are held each until it is given back
	 * ({@link RateLimitSlot#close()}) or its lease ends, renewed by {@link RateLimitSlot#renew()}. At most
	 * {@code maxKeys} keys are kept: past that, the least recently used key that holds no live slot goes first.
	 */
	@Override
	public RateLimitSlot tryAcquireSlot(String key, long limit, Duration lease) {
		if (key == null) {
			throw new IllegalArgumentException("key must not be null");
		}
		RateLimit concurrency = RateLimitSlot.concurrency(limit, lease);
		long now = this.nanoTime.getAsLong();
		synchronized (this.slots) {
			Map<String, Long> held = this.slots.get(key);
			if (held == null) {
				if (this.slots.size() >= this.maxKeys) {
					evictSlots(now);
				}
				held = new LinkedHashMap<>(4);
				this.slots.put(key, held);
			}
			held.values().removeIf((ends) -> ends - now <= 0);
			long first = Long.MAX_VALUE;
			for (long ends : held.values()) {
				first = Math.min(first, ends - now);
			}
			if (held.size() >= limit) {
				// slots are given back long before their leases end: retry soon
				Duration retry = Duration.ofNanos(Math.max(Math.min(first, SLOT_RETRY.toNanos()), 1_000_000));
				return RateLimitSlot.unheld(key, concurrency, RateLimitDecision.rejected(limit, 0, retry, retry));
			}
			String id = RateLimitSlot.newId();
			held.put(id, now + lease.toNanos());
			RateLimitDecision decision = RateLimitDecision.allowed(limit, limit - held.size(),
					Duration.ofNanos(Math.min(first, lease.toNanos())));
			return RateLimitSlot.held(this, key, concurrency, id, decision);
		}
	}

	/** Drops the least recently used key that holds no live slot, else the least recently used key. */
	private void evictSlots(long now) {
		Iterator<Map.Entry<String, Map<String, Long>>> keys = this.slots.entrySet().iterator();
		while (keys.hasNext()) {
			Map.Entry<String, Map<String, Long>> entry = keys.next();
			if (entry.getValue().values().stream().allMatch((ends) -> ends - now <= 0)) {
				keys.remove();
				return;
			}
		}
		keys = this.slots.entrySet().iterator();
		if (keys.hasNext()) {
			keys.next();
			keys.remove();
		}
	}

	/**
	 * Holds a slot for another lease from now; a slot whose lease had ended (this instance did not renew it in time)
	 * is taken back all the same, past the limit if need be, as the Redis limiters do.
	 */
	@Override
	public CompletableFuture<Boolean> renewSlotAsync(RateLimitSlot slot) {
		long now = this.nanoTime.getAsLong();
		String id = slot.id();
		if (id == null) {
			return CompletableFuture.completedFuture(false);
		}
		synchronized (this.slots) {
			Map<String, Long> held = this.slots.get(slot.key());
			if (held == null) {
				if (this.slots.size() >= this.maxKeys) {
					evictSlots(now);
				}
				held = new LinkedHashMap<>(4);
				this.slots.put(slot.key(), held);
			}
			Long ends = held.put(id, now + slot.lease().toNanos());
			return CompletableFuture.completedFuture(ends != null && ends - now > 0);
		}
	}

	@Override
	public CompletableFuture<Void> releaseSlotAsync(RateLimitSlot slot) {
		synchronized (this.slots) {
			Map<String, Long> held = this.slots.get(slot.key());
			if (held != null && slot.id() != null) {
				held.remove(slot.id());
			}
		}
		return CompletableFuture.completedFuture(null);
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
		RateLimiter.checkCost("permits", permits, 1);
		long now = this.nanoTime.getAsLong();
		List<RateLimitDecision> decisions = new ArrayList<>(limits.size());
		synchronized (this.windows) {
			List<long[]> states = new ArrayList<>(limits.size());
			boolean granted = true;
			for (RateLimit limit : limits) {
				long[] state = window(windowKey(key, limit), limit, now);
				if (now - state[0] >= state[3]) {
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
				Duration windowLeft = Duration.ofNanos(state[0] + state[3] - now);
				long remaining = Math.max(limit.limit() - state[1], 0);
				Duration resetAfter = (state[1] > 0) ? windowLeft : Duration.ZERO;
				decisions.add(admits ? RateLimitDecision.allowed(limit.limit(), remaining, resetAfter)
						: RateLimitDecision.rejected(limit.limit(), remaining, windowLeft, resetAfter));
			}
		}
		return decisions;
	}

	/** The window of a key and limit, made (after an eviction when full) if the key has none. */
	private long[] window(String windowKey, RateLimit limit, long now) {
		long[] state = this.windows.get(windowKey);
		if (state == null) {
			if (this.windows.size() >= this.maxKeys) {
				evictOne(now);
			}
			state = new long[] { now, 0, limit.limit(), limit.window().toNanos() };
			this.windows.put(windowKey, state);
		}
		state[2] = limit.limit();
		return state;
	}

	/**
	 * Drops one window: of the least recently used, the first that is over, else the first that still grants
	 * permits, else the least recently used of all.
	 */
	private void evictOne(long now) {
		Iterator<Map.Entry<String, long[]>> eldest = this.windows.entrySet().iterator();
		String granting = null;
		for (int seen = 0; eldest.hasNext() && seen < EVICTION_SCAN; seen++) {
			Map.Entry<String, long[]> entry = eldest.next();
			long[] state = entry.getValue();
			if (now - state[0] >= state[3]) {
				eldest.remove();
				return;
			}
			if (granting == null && state[1] < state[2]) {
				granting = entry.getKey();
			}
		}
		if (granting != null) {
			this.windows.remove(granting);
			return;
		}
		Iterator<String> all = this.windows.keySet().iterator();
		all.next();
		all.remove();
	}

	private static String windowKey(String key, RateLimit limit) {
		return RateLimitKeys.segment(key) + "\u0000" + limit.window().toNanos();
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

package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitDecision;

/**
 * Keeps a hot key from flooding Redis with calls bound to be refused: once Redis tells that a key has fewer than
 * {@value #LOW_REMAINING} permits left, at most that many calls plus one for it are in flight at once from this
 * instance; the others wait for one of them to come back. The one call more than the permits left is the one that
 * learns of the refusal, so a key whose budget runs out costs one refused Redis call per retry period, however many
 * threads want it. Part of the {@link LocalDenialCache}, which asks it before a call goes and tells it of every
 * answer.
 */
final class HotKeyThrottle {

	/** Below how many permits left a key's calls in flight are counted and held to the permits left. */
	static final long LOW_REMAINING = 64;

	/** What {@link #send} answers a caller that is to look in memory again. */
	private static final CompletableFuture<Void> LOOK_AGAIN = CompletableFuture.completedFuture(null);

	private final int maxKeys;

	private final LongSupplier nanoTime;

	private final Refusals refusals;

	private final Map<String, Budget> budgets = new ConcurrentHashMap<>();

	/**
	 * @param maxKeys how many keys with a low budget to follow at most
	 * @param nanoTime the cache's monotonic clock
	 * @param refusals tells whether a refusal that a call is bound to meet is remembered now
	 */
	HotKeyThrottle(int maxKeys, LongSupplier nanoTime, Refusals refusals) {
		this.maxKeys = maxKeys;
		this.nanoTime = nanoTime;
		this.refusals = refusals;
	}

	/**
	 * Lets a call for a key go to Redis ({@code null}), counting it in flight when the key's budget is low, or
	 * returns the future to wait for when as many calls are in flight as the key has permits left, plus one;
	 * {@link #LOOK_AGAIN} when a refusal the call is bound to meet was remembered since it looked.
	 */
	@Nullable CompletableFuture<Void> send(String key, long permits) {
		Budget budget = this.budgets.get(key);
		if (budget == null) {
			return null;
		}
		synchronized (budget) {
			long now = this.nanoTime.getAsLong();
			// once the budget is full again, it has its limit left
			long left = (now - budget.until >= 0) ? budget.limit : budget.remaining;
			if (budget.inFlight <= left) {
				// the call that learnt of a refusal remembers it before it leaves the calls in flight: one
				// that came back refused since this caller looked is read from memory, not asked again
				if (this.refusals.refuses(key, permits, now)) {
					return LOOK_AGAIN;
				}
				budget.inFlight++;
				return null;
			}
			if (budget.released == null) {
				budget.released = new CompletableFuture<>();
			}
			return budget.released;
		}
	}

	/**
	 * Learns what Redis told of a key's budget, from a call's decisions: below {@value #LOW_REMAINING} permits
	 * left (the fewest of its limits; none when refused) the key's calls in flight are held to the permits left,
	 * plus one, until the budget is full again or known to be plentiful.
	 */
	void observe(String key, long sentAt, List<RateLimitDecision> decisions) {
		long remaining = Long.MAX_VALUE;
		long limit = Long.MAX_VALUE;
		Duration full = Duration.ZERO;
		for (RateLimitDecision decision : decisions) {
			remaining = Math.min(remaining, decision.allowed() ? decision.remaining() : 0);
			limit = Math.min(limit, decision.limit());
			if (decision.resetAfter().compareTo(full) > 0) {
				full = decision.resetAfter();
			}
		}
		Budget budget = this.budgets.get(key);
		if (budget == null) {
			if (remaining >= LOW_REMAINING) {
				return;
			}
			if (this.budgets.size() >= this.maxKeys) {
				long now = this.nanoTime.getAsLong();
				this.budgets.values().removeIf((idle) -> idle.isOver(now));
				if (this.budgets.size() >= this.maxKeys) {
					return;
				}
			}
			budget = this.budgets.computeIfAbsent(key, (k) -> new Budget());
		}
		synchronized (budget) {
			long until = sentAt + Math.max(full.toNanos(), 1);
			if (budget.sentAt == Long.MIN_VALUE || sentAt - budget.until >= 0) {
				// the first answer, or one to a call sent once the budget was full again
				budget.sentAt = sentAt;
				budget.remaining = remaining;
				budget.limit = limit;
				budget.until = until;
			}
			else {
				// answers come back in any order: until the budget is full again, the fewest permits told
				// stands (permits that time gives back meanwhile only make this cautious, never refuse)
				budget.remaining = Math.min(budget.remaining, remaining);
				budget.limit = Math.min(budget.limit, limit);
				if (until - budget.until > 0) {
					budget.until = until;
				}
			}
			if (budget.inFlight == 0 && budget.isPlentiful(this.nanoTime.getAsLong())) {
				this.budgets.remove(key, budget);
			}
		}
	}

	/**
	 * Reports that a call for {@code key} came back: one call fewer in flight, and the callers waiting for a turn
	 * try again.
	 */
	void settle(String key) {
		Budget budget = this.budgets.get(key);
		if (budget == null) {
			return;
		}
		CompletableFuture<Void> released;
		synchronized (budget) {
			// a call sent before the key was counted may come back after: never below none
			budget.inFlight = Math.max(budget.inFlight - 1, 0);
			released = budget.released;
			budget.released = null;
			if (budget.inFlight == 0 && budget.isPlentiful(this.nanoTime.getAsLong())) {
				this.budgets.remove(key, budget);
			}
		}
		if (released != null) {
			released.complete(null);
		}
	}

	/** Stops following the keys that start with {@code prefix}, waking the callers waiting for their turn. */
	void forget(String prefix) {
		this.budgets.entrySet().removeIf((entry) -> entry.getKey().startsWith(prefix) && entry.getValue().release());
	}

	/** Stops following every key, waking the callers waiting for their turn. */
	void clear() {
		this.budgets.values().removeIf(Budget::release);
	}

	/** Tells whether a refusal that a call for {@code permits} is bound to meet is remembered at {@code now}. */
	@FunctionalInterface
	interface Refusals {

		boolean refuses(String key, long permits, long now);

	}

	/**
	 * What Redis last told of a key with few permits left, and the calls for it in flight. Guarded by its own
	 * monitor.
	 */
	private static final class Budget {

		long sentAt = Long.MIN_VALUE;

		long remaining = Long.MAX_VALUE;

		/** The fewest permits of the key's limits: what it has left once its budget is full again. */
		long limit = Long.MAX_VALUE;

		/** When the budget is full again. */
		long until;

		int inFlight;

		@Nullable CompletableFuture<Void> released;

		/** Whether nothing is in flight and the budget is full again: the entry can go. */
		synchronized boolean isOver(long now) {
			return this.inFlight == 0 && now - this.until >= 0;
		}

		/** Whether the key has too many permits left to be held back, now or once full again. */
		boolean isPlentiful(long now) {
			return ((now - this.until >= 0) ? this.limit : this.remaining) >= LOW_REMAINING;
		}

		/** Wakes the callers waiting for a turn, the entry about to be dropped. */
		boolean release() {
			CompletableFuture<Void> waiting;
			synchronized (this) {
				waiting = this.released;
				this.released = null;
			}
			if (waiting != null) {
				waiting.complete(null);
			}
			return true;
		}

	}

}

package dev.ratelimit;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * A slot of work in flight taken with {@link RateLimiter#tryAcquireSlot}: at most {@code limit} slots of a key are
 * held at once, across every instance that shares the limiter's Redis. A slot is held under a lease: it is given
 * back by {@link #close()} (use it in try-with-resources), or by itself when its lease ends without a
 * {@link #renew()}, so that the slots of an instance that crashed come back by themselves.
 * <p>
 * A slot that was refused, or granted while Redis could not be asked ({@code fail-open}), holds nothing: closing it
 * does nothing.
 *
 * <pre>{@code
 * try (RateLimitSlot slot = limiter.tryAcquireSlot("tenant-42", 5, Duration.ofMinutes(1))) {
 *     if (!slot.acquired()) {
 *         return tooBusy(slot.decision().retryAfter());
 *     }
 *     return export();
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class RateLimitSlot implements AutoCloseable {

	/** This JVM's part of every slot id, so that ids of several instances never meet. */
	private static final String INSTANCE = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36);

	private static final AtomicLong SEQUENCE = new AtomicLong();

	private final @Nullable RateLimiter limiter;

	private final String key;

	private final RateLimit concurrency;

	private final @Nullable String id;

	private final RateLimitDecision decision;

	private final AtomicBoolean released = new AtomicBoolean();

	private RateLimitSlot(@Nullable RateLimiter limiter, String key, RateLimit concurrency, @Nullable String id,
			RateLimitDecision decision) {
		this.limiter = limiter;
		this.key = key;
		this.concurrency = concurrency;
		this.id = id;
		this.decision = decision;
	}

	/**
	 * Returns a slot a limiter holds for a key: for limiters implementing {@link RateLimiter#tryAcquireSlot}.
	 * @param limiter the limiter that holds it, which {@link #close()} and {@link #renew()} call back
	 * @param key the key
	 * @param concurrency the slots a key may hold ({@link RateLimit#limit()}) and their lease ({@link RateLimit#window()})
	 * @param id the slot's id ({@link #newId()}), under which the limiter holds it
	 * @param decision the decision that granted it
	 * @return the slot
	 */
	public static RateLimitSlot held(RateLimiter limiter, String key, RateLimit concurrency, String id,
			RateLimitDecision decision) {
		if (limiter == null || key == null || concurrency == null || id == null || decision == null) {
			throw new IllegalArgumentException("limiter, key, concurrency, id and decision must not be null");
		}
		if (!decision.allowed()) {
			throw new IllegalArgumentException("a refused decision holds no slot");
		}
		return new RateLimitSlot(limiter, key, concurrency, id, decision);
	}

	/**
	 * Returns a slot that holds nothing: a refusal, or a call let through while no limiter could be asked.
	 * @param key the key
	 * @param concurrency the slots a key may hold and their lease
	 * @param decision the decision
	 * @return the slot, whose {@link #close()} does nothing
	 */
	public static RateLimitSlot unheld(String key, RateLimit concurrency, RateLimitDecision decision) {
		if (key == null || concurrency == null || decision == null) {
			throw new IllegalArgumentException("key, concurrency and decision must not be null");
		}
		return new RateLimitSlot(null, key, concurrency, null, decision);
	}

	/**
	 * Returns the limit of a slot call as a {@link RateLimit}: {@code limit} slots, each held for {@code lease},
	 * checked with errors that name the arguments.
	 * @param limit how many slots a key may hold at once, at least 1
	 * @param lease how long a slot is held without a renewal, from 1 ms to {@link RateLimit#MAX_WINDOW}
	 * @return the concurrency limit
	 * @throws IllegalArgumentException when an argument is out of range
	 */
	public static RateLimit concurrency(long limit, Duration lease) {
		if (limit < 1 || limit > RateLimit.MAX_LIMIT) {
			throw new IllegalArgumentException("limit (slots held at once) must be from 1 to " + RateLimit.MAX_LIMIT
					+ ", but was " + limit);
		}
		if (lease == null || lease.compareTo(RateLimit.MIN_WINDOW) < 0 || lease.compareTo(RateLimit.MAX_WINDOW) > 0) {
			throw new IllegalArgumentException("lease must be from 1ms to " + RateLimit.MAX_WINDOW.toDays()
					+ " days, but was " + lease);
		}
		return RateLimit.of(limit, lease);
	}

	/**
	 * Returns a new slot id, unique across instances: a random part drawn once per JVM, and a sequence.
	 * @return the id
	 */
	public static String newId() {
		return INSTANCE + "-" + Long.toString(SEQUENCE.incrementAndGet(), 36);
	}

	/**
	 * Returns whether the slot was granted.
	 * @return {@code true} when the work may start
	 */
	public boolean acquired() {
		return this.decision.allowed();
	}

	/**
	 * Returns whether a limiter holds this slot until it is closed or its lease ends: {@code false} for a refusal,
	 * and for a call let through without a limiter.
	 * @return {@code true} when closing it gives a slot back
	 */
	public boolean held() {
		return this.limiter != null;
	}

	/**
	 * Returns the decision: when refused, its {@code retryAfter} is short (a slot is usually given back long before
	 * its lease ends); {@code remaining} is how many more slots the key could take now.
	 * @return the decision
	 */
	public RateLimitDecision decision() {
		return this.decision;
	}

	/**
	 * Returns the key.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Returns the slots a key may hold ({@link RateLimit#limit()}) and the lease ({@link RateLimit#window()}).
	 * @return the concurrency limit
	 */
	public RateLimit concurrency() {
		return this.concurrency;
	}

	/**
	 * Returns how long the slot is held without a {@link #renew()}.
	 * @return the lease
	 */
	public Duration lease() {
		return this.concurrency.window();
	}

	/**
	 * Returns the id the limiter holds the slot under.
	 * @return the id, or {@code null} for a slot that holds nothing
	 */
	public @Nullable String id() {
		return this.id;
	}

	/**
	 * Returns whether the slot was given back, by {@link #close()} or {@link #releaseAsync()}.
	 * @return {@code true} once given back
	 */
	public boolean released() {
		return this.released.get();
	}

	/**
	 * Holds the slot for another lease from now: for work that runs longer than its lease. A slot whose lease ended
	 * before this call (the limiter did not answer the renewals in time: a Redis pause, a failover) is taken back all
	 * the same, past the limit if another call took its place meanwhile, so that no new call starts until the key is
	 * under its limit again: the work goes on, and the renewal answers {@code false} so that the caller can say so.
	 * @return {@code true} when the slot was held until this renewal; {@code false} when it holds nothing, was given
	 * back (nothing is taken then), or its lease had ended (it is taken back)
	 * @throws RateLimiterUnavailableException when the limiter could not be asked
	 */
	public boolean renew() {
		try {
			return renewAsync().join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	/**
	 * Holds the slot for another lease from now, as {@link #renew()} does, without making the caller wait.
	 * @return completes with whether the slot was held until this renewal, exceptionally with
	 * {@link RateLimiterUnavailableException} when the limiter could not be asked
	 */
	public CompletableFuture<Boolean> renewAsync() {
		RateLimiter limiter = this.limiter;
		if (limiter == null || this.released.get()) {
			return CompletableFuture.completedFuture(false);
		}
		return limiter.renewSlotAsync(this).thenCompose((held) -> {
			if (!this.released.get()) {
				return CompletableFuture.completedFuture(held);
			}
			// given back while the renewal was on its way: a renewal that took a lapsed slot back must not keep it
			return limiter.releaseSlotAsync(this).handle((given, ex) -> held);
		});
	}

	/**
	 * Gives the slot back, at most once, without making the caller wait.
	 * @return completes when given back, exceptionally with {@link RateLimiterUnavailableException} when the
	 * limiter could not be asked (the slot then comes back when its lease ends)
	 */
	public CompletableFuture<Void> releaseAsync() {
		RateLimiter limiter = this.limiter;
		if (limiter == null || !this.released.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		return limiter.releaseSlotAsync(this);
	}

	/**
	 * Gives the slot back, at most once. When the limiter cannot be asked, the slot comes back when its lease ends;
	 * that failure is not thrown, so that closing never hides the work's own outcome.
	 */
	@Override
	public void close() {
		try {
			releaseAsync().join();
		}
		catch (CompletionException ex) {
			if (!(ex.getCause() instanceof RateLimiterUnavailableException)) {
				throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
			}
		}
	}

	@Override
	public String toString() {
		return "RateLimitSlot[key=" + this.key + ", limit=" + this.concurrency.limit() + ", lease="
				+ this.concurrency.window() + ", acquired=" + acquired() + ", held=" + held() + ", released="
				+ released() + "]";
	}

}

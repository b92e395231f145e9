package dev.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A limiter that takes a hot key's permits from another limiter (Redis) in batches and spends them in this
 * instance, so that most calls for the key make no remote call, and that never lets more calls through than the
 * limits across every instance: a permit is taken in Redis before it is spent here, and never spent once the window
 * it was counted in has ended (see {@code PrefetchBatch} for how long each algorithm's permits last).
 * <p>
 * Each key (with its limits) gets a batch of up to {@code prefetch} permits (never more than the smallest limit or
 * burst); the call that fetches it takes its own permits out of it, the following ones spend the rest. Once a
 * batch holds a quarter of it or less, the call that finds it so tops it up in the background (what the batch holds
 * and what is on its way never exceed one batch), so that a key that stays hot never waits for Redis. Only one fetch
 * per key is in flight at a time: the calls that find the batch empty meanwhile wait for it without holding a
 * thread, then spend from the new batch (or fetch the next). When Redis refuses a batch, the budget is near its
 * end: calls are decided one by one (for their own permits) until a batch could be granted again, as Redis told.
 * What a batch holds unspent is given back ({@link RateLimiter#refundAsync}) when its key has gone quiet
 * ({@code quietAfter} without a call), when it can no longer be spent (a token bucket or GCRA batch after a short
 * while), and at {@link #close()}; a window's batch is given back only while its window has at least a second to
 * run, so that the permits never reach the next window: otherwise they lapse with the window. A quiet instance may
 * so keep up to {@code prefetch} permits of a key unspent until its window ends: other instances may then refuse
 * calls early, never more than {@code prefetch} per instance.
 * <p>
 * The decisions announced tell the budget as last known here: what Redis left when it last granted a batch, and what
 * this instance still holds of it, its reset counted down. They are never more generous than that: what other
 * instances took since is not known here, and what they hold counts as taken.
 * <p>
 * Works with every algorithm whose state is a count: the fixed window, the sliding window counter, the token bucket
 * and GCRA; the sliding window log, which records each permit's time, cannot lend them. The limiter given must be
 * able to give permits back. Calls the batch cannot pay for (more permits than a batch), and everything but taking
 * permits (inspect, refund, charge, slots), go to it directly. Memory is bounded: past {@code maxKeys} keys, calls
 * for new keys are decided one by one.
 *
 * @since 0.1.0
 */
public final class PrefetchingRateLimiter implements RateLimiter, AutoCloseable {

	/** How long a key goes without a call before what its batch holds is given back, by default. */
	public static final Duration DEFAULT_QUIET_AFTER = Duration.ofSeconds(1);

	/** How many keys hold batches at most, by default. */
	public static final int DEFAULT_MAX_KEYS = 10_000;

	/** How long a window must still run for a give-back to reach it. */
	static final long GIVE_BACK_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** The longest {@link #close()} waits for the permits it gives back. */
	private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

	private static final Log logger = LogFactory.getLog(PrefetchingRateLimiter.class);

	/** The {@code permits} of a top-up: no call takes its own out of it. */
	private static final long TOP_UP = -1;

	private final RateLimiter delegate;

	private final long prefetch;

	private final long quietNanos;

	private final int maxKeys;

	private final LongSupplier nanoTime;

	private final ConcurrentMap<BatchKey, PrefetchBatch> batches = new ConcurrentHashMap<>();

	private final AtomicLong nextSweep;

	private volatile boolean closed;

	private PrefetchingRateLimiter(Builder builder) {
		this.delegate = builder.delegate;
		this.prefetch = builder.prefetch;
		this.quietNanos = Durations.saturatedNanos(builder.quietAfter);
		this.maxKeys = builder.maxKeys;
		this.nanoTime = builder.nanoTime;
		this.nextSweep = new AtomicLong(this.nanoTime.getAsLong() + this.quietNanos);
	}

	/**
	 * Starts a limiter over {@code delegate} that fetches up to {@code prefetch} permits of a key at once.
	 * @param delegate the limiter permits are taken from and given back to, such as a Redis limiter
	 * @param prefetch how many permits of a key one batch takes, at least 1
	 * @return the builder
	 * @throws IllegalArgumentException when {@code prefetch} is below 1, or the delegate's algorithm is the sliding
	 * window log
	 */
	public static Builder builder(RateLimiter delegate, long prefetch) {
		return new Builder(delegate, prefetch);
	}

	/**
	 * Returns how many permits of a key one batch takes at most.
	 * @return the prefetch
	 */
	public long prefetch() {
		return this.prefetch;
	}

	@Override
	public List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits) {
		try {
			return tryAcquireAsync(key, limits, permits).join();
		}
		catch (CompletionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	@Override
	public CompletableFuture<List<RateLimitDecision>> tryAcquireAsync(String key, List<RateLimit> limits,
			long permits) {
		RateLimiter.checkCost("permits", permits, 1);
		long size = batchSize(limits);
		if (this.closed || permits >= size) {
			return this.delegate.tryAcquireAsync(key, limits, permits);
		}
		long now = this.nanoTime.getAsLong();
		sweepIfDue(now);
		PrefetchBatch batch = batch(key, limits, permits);
		if (batch == null) {
			return this.delegate.tryAcquireAsync(key, limits, permits);
		}
		List<RateLimitDecision> spent = null;
		long lapsed = 0;
		boolean giveBack = false;
		boolean perRequest = false;
		boolean retired;
		CompletableFuture<Void> fetch = null;
		boolean fetching = false;
		long ahead = 0;
		synchronized (batch) {
			retired = batch.retired();
			if (!retired) {
				spent = batch.spend(permits, now);
				if (spent == null && batch.held() > 0) {
					// expired, or too few for this call: given back while that is safe, else they lapse
					giveBack = batch.mayGiveBack(now, GIVE_BACK_MARGIN_NANOS);
					lapsed = batch.takeHeld();
				}
				fetch = batch.fetch();
				if (spent == null && batch.perRequest(now)) {
					perRequest = true;
				}
				else if (spent == null && fetch == null) {
					fetch = batch.startFetch();
					fetching = true;
				}
				else if (spent != null && fetch == null && batch.held() <= lowWater(size) && !batch.perRequest(now)) {
					// what the batch lacks of a whole one, on its way while the rest is spent
					ahead = size - batch.held();
					fetch = batch.startFetch();
				}
			}
		}
		if (giveBack && lapsed > 0) {
			giveBack(key, limits, lapsed);
		}
		if (retired) {
			// dropped by a sweep meanwhile: look it up again
			return tryAcquireAsync(key, limits, permits);
		}
		if (spent != null) {
			if (ahead > 0 && fetch != null) {
				fetchAhead(batch, fetch, key, limits, ahead);
			}
			return CompletableFuture.completedFuture(spent);
		}
		if (perRequest || fetch == null) {
			return this.delegate.tryAcquireAsync(key, limits, permits);
		}
		if (!fetching) {
			// another call's batch is on its way: spend from it once it came (or decide as it tells)
			return fetch.handle((done, failure) -> (failure != null)
					? CompletableFuture.<List<RateLimitDecision>>failedFuture(failure)
					: tryAcquireAsync(key, limits, permits))
				.thenCompose(Function.identity());
		}
		return fetch(batch, fetch, key, limits, permits, size);
	}

	/**
	 * Takes a batch in Redis for {@code key}; the fetching call takes its own permits out of it. When Redis refuses
	 * the batch, this call asks for its own permits alone, and so do the key's next calls until a batch could be
	 * granted again.
	 */
	private CompletableFuture<List<RateLimitDecision>> fetch(PrefetchBatch batch, CompletableFuture<Void> fetched,
			String key, List<RateLimit> limits, long permits, long size) {
		return take(batch, fetched, key, limits, size, permits).handle((announced, failure) -> {
			if (failure != null) {
				return CompletableFuture.<List<RateLimitDecision>>failedFuture(failure);
			}
			if (announced != null) {
				return CompletableFuture.completedFuture(announced);
			}
			// near the end of the budget: this call's own permits alone
			return this.delegate.tryAcquireAsync(key, limits, permits);
		}).thenCompose(Function.identity());
	}

	/**
	 * Tops up a batch that runs low, in the background: takes {@code ahead} permits in Redis, so that the batch holds a
	 * whole one again when they come, and its calls never wait for a fetch while the key stays hot. What the batch still
	 * holds and what is on its way never make more than one batch. When Redis refuses them, the budget is near its end:
	 * the batch spends what it holds, then decides calls one by one. When Redis cannot be asked, the calls go on with
	 * what the batch holds, and the next one that finds it low tries again.
	 */
	private void fetchAhead(PrefetchBatch batch, CompletableFuture<Void> fetched, String key, List<RateLimit> limits,
			long ahead) {
		take(batch, fetched, key, limits, ahead, TOP_UP).whenComplete((announced, failure) -> {
			if (failure != null) {
				logger.debug("Could not top up a batch of permits", failure);
			}
		});
	}

	/**
	 * Takes {@code size} permits of {@code key} in Redis for {@code batch}, and keeps them there once granted: a whole
	 * batch, less the fetching call's own {@code permits}; or, for a top-up ({@code permits} is {@link #TOP_UP}), what
	 * the batch holds with {@code size} added, counted from the top-up's decisions. Completes {@code fetched} when the
	 * answer is known here; what arrives once the limiter closed or the batch was retired is given back.
	 * @return the decisions to announce to the fetching call (a top-up's are of no use), {@code null} when Redis refused
	 * the batch; failed when Redis could not be asked, and then so is {@code fetched}, but for a top-up, whose waiters go
	 * on with what the batch holds
	 */
	private CompletableFuture<@Nullable List<RateLimitDecision>> take(PrefetchBatch batch,
			CompletableFuture<Void> fetched, String key, List<RateLimit> limits, long size, long permits) {
		boolean topUp = permits == TOP_UP;
		long sentAt = this.nanoTime.getAsLong();
		CompletableFuture<List<RateLimitDecision>> asked;
		try {
			asked = this.delegate.tryAcquireAsync(key, limits, size);
		}
		catch (RuntimeException ex) {
			failed(batch, fetched, topUp, ex);
			if (!topUp) {
				throw ex;
			}
			return CompletableFuture.failedFuture(ex);
		}
		return asked.handle((decisions, failure) -> {
			if (failure != null) {
				failed(batch, fetched, topUp, failure);
				return CompletableFuture.<@Nullable List<RateLimitDecision>>failedFuture(failure);
			}
			long receivedAt = this.nanoTime.getAsLong();
			boolean granted = decisions.stream().allMatch(RateLimitDecision::allowed);
			List<RateLimitDecision> announced = null;
			long late = 0;
			long lapsed = 0;
			boolean giveBack = false;
			synchronized (batch) {
				if (granted && topUp) {
					if (batch.held() > 0 && !batch.spendable(receivedAt)) {
						// what the batch held ended before Redis counted the top-up (its window, or the bucket's
						// refill): only the top-up may be spent
						giveBack = batch.mayGiveBack(receivedAt, GIVE_BACK_MARGIN_NANOS);
						lapsed = batch.takeHeld();
					}
					batch.granted(batch.held() + size, 0, decisions, sentAt, receivedAt);
				}
				else if (granted) {
					batch.granted(size, permits, decisions, sentAt, receivedAt);
					announced = batch.announced(receivedAt);
				}
				else {
					batch.refused(decisions, sentAt, receivedAt);
				}
				if (granted && (this.closed || batch.retired())) {
					late = batch.takeHeld();
				}
			}
			fetched.complete(null);
			if (giveBack && lapsed > 0) {
				giveBack(key, limits, lapsed);
			}
			if (late > 0) {
				giveBack(key, limits, late);
			}
			return CompletableFuture.completedFuture(announced);
		}).thenCompose(Function.identity());
	}

	/** Ends a fetch Redis could not be asked for: its waiters learn it, but a top-up's go on with what is held. */
	private static void failed(PrefetchBatch batch, CompletableFuture<Void> fetched, boolean topUp, Throwable failure) {
		synchronized (batch) {
			batch.failed();
		}
		if (topUp) {
			fetched.complete(null);
		}
		else {
			fetched.completeExceptionally(failure);
		}
	}

	/**
	 * How few permits a batch of {@code size} holds before it is topped up: a quarter of it, so that a top-up takes at
	 * least three quarters of a batch and the key's Redis calls stay under 4 / (3 x prefetch) per permit.
	 */
	private static long lowWater(long size) {
		return size / 4;
	}

	/** The permits of one batch under {@code limits}: the prefetch, at most the smallest limit (or burst). */
	private long batchSize(List<RateLimit> limits) {
		long size = this.prefetch;
		for (RateLimit limit : limits) {
			if (limit != null) {
				size = Math.min(size, Math.min(limit.limit(), limit.burst()));
			}
		}
		return size;
	}

	/**
	 * The batch of {@code key} under {@code limits}, created (once its arguments are checked) when there is room;
	 * {@code null} when {@code maxKeys} batches are held.
	 */
	private @Nullable PrefetchBatch batch(String key, List<RateLimit> limits, long permits) {
		BatchKey id = new BatchKey(key, limits);
		PrefetchBatch batch = this.batches.get(id);
		if (batch != null) {
			return batch;
		}
		if (this.batches.size() >= this.maxKeys) {
			return null;
		}
		this.delegate.algorithm().check(limits, permits);
		return this.batches.computeIfAbsent(new BatchKey(key, List.copyOf(limits)),
				(created) -> new PrefetchBatch(this.delegate.algorithm(), created.limits()));
	}

	private void sweepIfDue(long now) {
		long due = this.nextSweep.get();
		if (now - due >= 0 && this.nextSweep.compareAndSet(due, now + this.quietNanos)) {
			sweep(now);
		}
	}

	/**
	 * Gives back what the batches of keys gone quiet hold, and what can no longer be spent, and drops the batches
	 * that hold nothing: calls do it on their own, at most once per quiet time; this is for an application that
	 * wants it done on a schedule of its own.
	 */
	public void sweep() {
		sweep(this.nanoTime.getAsLong());
	}

	private void sweep(long now) {
		for (Map.Entry<BatchKey, PrefetchBatch> entry : this.batches.entrySet()) {
			PrefetchBatch batch = entry.getValue();
			long held = 0;
			synchronized (batch) {
				if (batch.fetch() != null) {
					continue;
				}
				boolean quiet = now - batch.lastUsed() >= this.quietNanos;
				if (batch.held() > 0 && (quiet || !batch.spendable(now))) {
					boolean giveBack = batch.mayGiveBack(now, GIVE_BACK_MARGIN_NANOS);
					long taken = batch.takeHeld();
					held = giveBack ? taken : 0;
				}
				if (quiet && batch.idle(now)) {
					batch.retire();
					this.batches.remove(entry.getKey(), batch);
				}
			}
			if (held > 0) {
				giveBack(entry.getKey().key(), entry.getKey().limits(), held);
			}
		}
	}

	private CompletableFuture<Void> giveBack(String key, List<RateLimit> limits, long permits) {
		try {
			return this.delegate.refundAsync(key, limits, permits).exceptionally((failure) -> {
				logger.debug("Could not give back " + permits + " unspent permits of a batch; they lapse with their "
						+ "window", failure);
				return null;
			});
		}
		catch (RuntimeException ex) {
			logger.debug("Could not give back " + permits + " unspent permits of a batch; they lapse with their window",
					ex);
			return CompletableFuture.completedFuture(null);
		}
	}

	/**
	 * Gives back what every batch holds unspent (while its window has a second to run) and decides every call one by
	 * one from now on: for an application's shutdown. Waits up to five seconds for Redis to take the permits back.
	 */
	@Override
	public void close() {
		this.closed = true;
		long now = this.nanoTime.getAsLong();
		List<CompletableFuture<Void>> given = new ArrayList<>();
		for (Map.Entry<BatchKey, PrefetchBatch> entry : this.batches.entrySet()) {
			PrefetchBatch batch = entry.getValue();
			long held;
			synchronized (batch) {
				batch.retire();
				boolean giveBack = batch.mayGiveBack(now, GIVE_BACK_MARGIN_NANOS);
				long taken = batch.takeHeld();
				held = giveBack ? taken : 0;
			}
			this.batches.remove(entry.getKey(), batch);
			if (held > 0) {
				given.add(giveBack(entry.getKey().key(), entry.getKey().limits(), held));
			}
		}
		try {
			CompletableFuture.allOf(given.toArray(CompletableFuture[]::new)).get(CLOSE_WAIT_NANOS, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Could not give back every batch's unspent permits at close; they lapse with their window", ex);
		}
	}

	/**
	 * Returns how many permits this instance holds unspent for {@code key} under {@code limits}.
	 * @param key the key
	 * @param limits the limits
	 * @return the permits held, 0 when none
	 */
	public long held(String key, List<RateLimit> limits) {
		PrefetchBatch batch = this.batches.get(new BatchKey(key, limits));
		if (batch == null) {
			return 0;
		}
		synchronized (batch) {
			return batch.held();
		}
	}

	@Override
	public List<RateLimitDecision> inspect(String key, List<RateLimit> limits) {
		return this.delegate.inspect(key, limits);
	}

	@Override
	public CompletableFuture<List<RateLimitDecision>> inspectAsync(String key, List<RateLimit> limits) {
		return this.delegate.inspectAsync(key, limits);
	}

	@Override
	public List<RateLimitDecision> check(String key, List<RateLimit> limits, long permits) {
		return this.delegate.check(key, limits, permits);
	}

	@Override
	public CompletableFuture<List<RateLimitDecision>> checkAsync(String key, List<RateLimit> limits, long permits) {
		return this.delegate.checkAsync(key, limits, permits);
	}

	@Override
	public void refund(String key, List<RateLimit> limits, long permits) {
		this.delegate.refund(key, limits, permits);
	}

	@Override
	public CompletableFuture<Void> refundAsync(String key, List<RateLimit> limits, long permits) {
		return this.delegate.refundAsync(key, limits, permits);
	}

	@Override
	public void charge(String key, List<RateLimit> limits, long permits) {
		this.delegate.charge(key, limits, permits);
	}

	@Override
	public CompletableFuture<Void> chargeAsync(String key, List<RateLimit> limits, long permits) {
		return this.delegate.chargeAsync(key, limits, permits);
	}

	@Override
	public RateLimitSlot tryAcquireSlot(String key, long limit, Duration lease) {
		return this.delegate.tryAcquireSlot(key, limit, lease);
	}

	@Override
	public CompletableFuture<RateLimitSlot> tryAcquireSlotAsync(String key, long limit, Duration lease) {
		return this.delegate.tryAcquireSlotAsync(key, limit, lease);
	}

	@Override
	public CompletableFuture<Boolean> renewSlotAsync(RateLimitSlot slot) {
		return this.delegate.renewSlotAsync(slot);
	}

	@Override
	public CompletableFuture<Void> releaseSlotAsync(RateLimitSlot slot) {
		return this.delegate.releaseSlotAsync(slot);
	}

	/**
	 * Puts {@code key} back to full, and drops what this instance holds of it: those permits were counted in the
	 * state the reset deleted.
	 */
	@Override
	public long reset(String key, List<RateLimit> limits) {
		PrefetchBatch batch = this.batches.remove(new BatchKey(key, limits));
		if (batch != null) {
			synchronized (batch) {
				batch.retire();
				batch.takeHeld();
			}
		}
		return this.delegate.reset(key, limits);
	}

	@Override
	public Algorithm algorithm() {
		return this.delegate.algorithm();
	}

	@Override
	public String toString() {
		return "PrefetchingRateLimiter(" + this.prefetch + " over " + this.delegate + ")";
	}

	/** A key under its limits: one batch each. */
	private record BatchKey(String key, List<RateLimit> limits) {
	}

	/**
	 * Builds a {@link PrefetchingRateLimiter}.
	 *
	 * @since 0.1.0
	 */
	public static final class Builder {

		private final RateLimiter delegate;

		private final long prefetch;

		private Duration quietAfter = DEFAULT_QUIET_AFTER;

		private int maxKeys = DEFAULT_MAX_KEYS;

		private LongSupplier nanoTime = System::nanoTime;

		private Builder(RateLimiter delegate, long prefetch) {
			if (prefetch < 1) {
				throw new IllegalArgumentException("prefetch must be at least 1, but was " + prefetch);
			}
			if (delegate.algorithm() == Algorithm.SLIDING_WINDOW_LOG) {
				throw new IllegalArgumentException("prefetch does not work with the sliding-window-log algorithm, "
						+ "which records the time of every permit: use sliding-window-counter, fixed-window, "
						+ "token-bucket or gcra, or no prefetch");
			}
			this.delegate = delegate;
			this.prefetch = prefetch;
		}

		/**
		 * Sets how long a key goes without a call before what its batch holds is given back (default 1 s).
		 * @param quietAfter the quiet time, positive
		 * @return this builder
		 */
		public Builder quietAfter(Duration quietAfter) {
			if (quietAfter.isNegative() || quietAfter.isZero()) {
				throw new IllegalArgumentException("quietAfter must be positive, but was " + quietAfter);
			}
			this.quietAfter = quietAfter;
			return this;
		}

		/**
		 * Sets how many keys hold batches at most (default 10,000); calls for further keys are decided one by one.
		 * @param maxKeys at least 1
		 * @return this builder
		 */
		public Builder maxKeys(int maxKeys) {
			if (maxKeys < 1) {
				throw new IllegalArgumentException("maxKeys must be at least 1, but was " + maxKeys);
			}
			this.maxKeys = maxKeys;
			return this;
		}

		/**
		 * Sets the monotonic clock batches expire on, in nanoseconds (default {@link System#nanoTime()}): for tests.
		 * @param nanoTime the clock
		 * @return this builder
		 */
		public Builder nanoTime(LongSupplier nanoTime) {
			this.nanoTime = nanoTime;
			return this;
		}

		/**
		 * Builds the limiter.
		 * @return the limiter
		 */
		public PrefetchingRateLimiter build() {
			return new PrefetchingRateLimiter(this);
		}

	}

}

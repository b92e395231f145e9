package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitDecision;

import org.springframework.util.Assert;

/**
 * Remembers rejections so that a key refused by Redis is refused again locally, without a Redis call,
 * until the earliest instant it could be granted. A rejection stays certain until then: other callers
 * can only take permits, never give them back, so this never refuses a call Redis would grant, nor for
 * longer (the deadline counts from before the call was sent). Memory is bounded: past
 * {@code maxKeys} entries, expired ones are dropped (at most once a second) and new rejections are not
 * remembered. A hot key is also kept from flooding Redis with calls bound to be refused: below 64 permits
 * left, at most as many calls as it has permits left, plus one, are in flight at once from this instance;
 * waiting only delays a call (at most a second), it never refuses one.
 * <p>
 * Give one to {@link RedisRateLimiter.Builder#denialCache}; the limiters call it, the application only reads
 * {@link #hits()} and {@link #size()} or {@link #clear() clears} it.
 *
 * @since 0.1.0
 */
public final class LocalDenialCache {

	private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;

	/** The longest a caller waits for another caller's Redis call for the same key. */
	private static final long PROBE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** How many probes of other callers one look-up waits for before it asks Redis itself. */
	private static final int MAX_WAITS = 2;

	/** How many calls of others coming back one look-up of a low budget waits for before it goes itself. */
	private static final int MAX_TURN_WAITS = 64;

	private final int maxKeys;

	private final LongSupplier nanoTime;

	private final Map<String, Denial> denials = new ConcurrentHashMap<>();

	private final HotKeyThrottle throttle;

	private final LongAdder hits = new LongAdder();

	private final AtomicLong nextSweep = new AtomicLong(Long.MIN_VALUE);

	/**
	 * Creates a cache on the system's monotonic clock.
	 * @param maxKeys how many rejected keys to remember at most, at least 1
	 */
	public LocalDenialCache(int maxKeys) {
		this(maxKeys, System::nanoTime);
	}

	/**
	 * Creates a cache on a given monotonic clock, for tests.
	 * @param maxKeys how many rejected keys to remember at most, at least 1
	 * @param nanoTime the clock, in nanoseconds
	 */
	LocalDenialCache(int maxKeys, LongSupplier nanoTime) {
		Assert.isTrue(maxKeys >= 1, () -> "maxKeys must be at least 1, but was " + maxKeys);
		this.maxKeys = maxKeys;
		this.nanoTime = nanoTime;
		this.throttle = new HotKeyThrottle(maxKeys, nanoTime, this::refuses);
	}

	/**
	 * Returns the current time of the cache's clock, to be taken before a call is sent.
	 * @return the time in nanoseconds
	 */
	long now() {
		return this.nanoTime.getAsLong();
	}

	/**
	 * Returns the decisions of a remembered rejection of {@code key}, counted down to now, when a call
	 * for {@code permits} is certain to be refused.
	 * @param key the key, limits included
	 * @param permits the permits the call asks for
	 * @return the decisions, or {@code null} when the call must go to Redis
	 */
	@Nullable List<RateLimitDecision> lookup(String key, long permits) {
		int probeWaits = 0;
		int turnWaits = 0;
		while (true) {
			Object found = find(key, permits);
			if (found instanceof CompletableFuture<?> probe) {
				if (probeWaits++ >= MAX_WAITS || !await(probe)) {
					return null;
				}
			}
			else if (found != null) {
				return decisions(found);
			}
			else {
				CompletableFuture<Void> turn = this.throttle.send(key, permits);
				// a caller that waited long enough goes anyway: waiting must never refuse a call
				if (turn == null || turnWaits++ >= MAX_TURN_WAITS || !await(turn)) {
					return null;
				}
			}
		}
	}

	/**
	 * Looks up a remembered rejection as {@link #lookup} does, without holding the caller's thread while
	 * another caller's Redis call for the same key is awaited.
	 * @param key the key, limits included
	 * @param permits the permits the call asks for
	 * @return the decisions, or {@code null} when the call must go to Redis; completed at once unless
	 * another caller is asking Redis
	 */
	CompletableFuture<@Nullable List<RateLimitDecision>> lookupAsync(String key, long permits) {
		return lookupAsync(key, permits, 0, 0);
	}

	private CompletableFuture<@Nullable List<RateLimitDecision>> lookupAsync(String key, long permits, int probeWaits,
			int turnWaits) {
		Object found = find(key, permits);
		boolean probing = found instanceof CompletableFuture<?>;
		if (found != null && !probing) {
			return CompletableFuture.completedFuture(decisions(found));
		}
		CompletableFuture<?> awaited = probing ? (CompletableFuture<?>) found : this.throttle.send(key, permits);
		if (awaited == null || (probing ? probeWaits >= MAX_WAITS : turnWaits >= MAX_TURN_WAITS)) {
			return CompletableFuture.completedFuture(null);
		}
		int probes = probing ? probeWaits + 1 : probeWaits;
		int turns = probing ? turnWaits : turnWaits + 1;
		if (awaited.isDone()) {
			// a refusal remembered since this caller looked: read it now
			return lookupAsync(key, permits, probes, turns);
		}
		return awaited.thenApply((answered) -> true)
			.completeOnTimeout(false, PROBE_WAIT_NANOS, TimeUnit.NANOSECONDS)
			.thenCompose((answered) -> answered ? lookupAsync(key, permits, probes, turns)
					: CompletableFuture.completedFuture(null));
	}

	/**
	 * Learns what Redis told of a key's budget, from a call's decisions, for the {@link HotKeyThrottle}.
	 * @param key the key, limits included
	 * @param sentAt when the call was sent, from {@link #now()}
	 * @param decisions the decisions Redis returned
	 */
	void observe(String key, long sentAt, List<RateLimitDecision> decisions) {
		this.throttle.observe(key, sentAt, decisions);
	}

	/** Whether a remembered refusal of {@code key} refuses a call for {@code permits} at {@code now}. */
	private boolean refuses(String key, long permits, long now) {
		Denial denial = this.denials.get(key);
		return denial != null && now - denial.until < 0 && permits >= denial.permits;
	}

	/**
	 * One step of a look-up: the decisions of a rejection that stands, {@code null} when the call must
	 * go to Redis (this caller then probes a rejection that ran out), or the probe of another caller to
	 * wait for.
	 */
	private @Nullable Object find(String key, long permits) {
		while (true) {
			Denial denial = this.denials.get(key);
			if (denial == null) {
				return null;
			}
			long now = this.nanoTime.getAsLong();
			if (now - denial.until < 0) {
				return (permits < denial.permits) ? null : countedDown(denial, now);
			}
			if (denial.probe != null) {
				return denial.probe;
			}
			// over: this caller asks Redis again, and callers of the same key meanwhile wait for its answer
			Denial probing = new Denial(denial.sentAt, denial.until, denial.permits, denial.decisions,
					new CompletableFuture<>());
			if (this.denials.replace(key, denial, probing)) {
				return null;
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static @Nullable List<RateLimitDecision> decisions(@Nullable Object found) {
		return (List<RateLimitDecision>) found;
	}

	private List<RateLimitDecision> countedDown(Denial denial, long now) {
		this.hits.increment();
		Duration elapsed = Duration.ofNanos(now - denial.sentAt);
		List<RateLimitDecision> decisions = new ArrayList<>(denial.decisions.size());
		for (RateLimitDecision decision : denial.decisions) {
			Duration resetAfter = positiveOrZero(decision.resetAfter().minus(elapsed));
			decisions.add(decision.allowed()
					? RateLimitDecision.allowed(decision.limit(), decision.remaining(), resetAfter)
					: RateLimitDecision.rejected(decision.limit(), decision.remaining(),
							decision.retryAfter().minus(elapsed), resetAfter));
		}
		return decisions;
	}

	/**
	 * Remembers a rejection until the earliest {@code retryAfter} of the limits that refused it.
	 * @param key the key, limits included
	 * @param permits the permits the call asked for
	 * @param sentAt when the call was sent, from {@link #now()}
	 * @param decisions the decisions of the refused call
	 */
	void remember(String key, long permits, long sentAt, List<RateLimitDecision> decisions) {
		Duration earliest = null;
		for (RateLimitDecision decision : decisions) {
			if (!decision.allowed() && (earliest == null || decision.retryAfter().compareTo(earliest) < 0)) {
				earliest = decision.retryAfter();
			}
		}
		if (earliest == null) {
			return;
		}
		if (this.denials.size() >= this.maxKeys) {
			// full: drop the expired ones, at most once a second, so that a flood of distinct keys cannot
			// turn every refusal into a scan
			long now = this.nanoTime.getAsLong();
			long due = this.nextSweep.get();
			if ((due == Long.MIN_VALUE || now - due >= 0) && this.nextSweep.compareAndSet(due, now + SWEEP_INTERVAL_NANOS)) {
				// an entry being probed stays: its callers are waiting for the probe's answer
				this.denials.values().removeIf((denial) -> now - denial.until >= 0 && denial.probe == null);
			}
			if (this.denials.size() >= this.maxKeys) {
				return;
			}
		}
		Denial previous = this.denials.put(key,
				new Denial(sentAt, sentAt + earliest.toNanos(), permits, List.copyOf(decisions), null));
		if (previous != null && previous.probe != null) {
			previous.probe.complete(null);
		}
	}

	/**
	 * Reports that a call for {@code key} came back from Redis without a rejection to remember (granted,
	 * or failed): the callers waiting for it go to Redis themselves.
	 * @param key the key, limits included
	 */
	void settle(String key) {
		Denial denial = this.denials.get(key);
		if (denial != null && denial.probe != null && this.denials.remove(key, denial)) {
			denial.probe.complete(null);
		}
		this.throttle.settle(key);
	}

	private static boolean await(CompletableFuture<?> probe) {
		try {
			probe.get(PROBE_WAIT_NANOS, TimeUnit.NANOSECONDS);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (ExecutionException | TimeoutException ex) {
			return false;
		}
	}

	/**
	 * Forgets the rejections of keys that start with {@code prefix}, for example after a key was reset.
	 * @param prefix the start of the keys
	 */
	void forget(String prefix) {
		this.denials.entrySet().removeIf((entry) -> entry.getKey().startsWith(prefix) && released(entry.getValue()));
		this.throttle.forget(prefix);
	}

	/**
	 * Forgets every rejection.
	 */
	public void clear() {
		this.denials.values().removeIf(LocalDenialCache::released);
		this.throttle.clear();
	}

	/** Wakes the callers waiting on a probe of a denial about to be dropped. */
	private static boolean released(Denial denial) {
		if (denial.probe != null) {
			denial.probe.complete(null);
		}
		return true;
	}

	/**
	 * Returns how many calls were refused from the cache so far.
	 * @return the count
	 */
	public long hits() {
		return this.hits.sum();
	}

	/**
	 * Returns how many rejections are remembered.
	 * @return the count, at most {@code maxKeys}
	 */
	public int size() {
		return this.denials.size();
	}

	private static Duration positiveOrZero(Duration duration) {
		return duration.isNegative() ? Duration.ZERO : duration;
	}

	private record Denial(long sentAt, long until, long permits, List<RateLimitDecision> decisions,
			@Nullable CompletableFuture<Void> probe) {
	}

}

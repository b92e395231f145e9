package dev.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * The permits one instance holds of one key under one list of limits: taken in Redis as a batch, spent here, until
 * they expire. Every method runs under the batch's own lock ({@code synchronized}), which
 * {@link PrefetchingRateLimiter} takes.
 * <p>
 * A permit is never spent past the moment its batch could no longer have been spent by Redis itself: for the fixed
 * window, the end of the window the batch was counted in (the decision's reset); for the sliding window counter, the
 * end of the fixed window its count lives in (the reset less a window); for the token bucket and GCRA, the moment
 * the bucket could have refilled so far that the tokens held here and those in Redis together would make more than
 * its capacity: {@code (burst - remaining - 1 - held) / rate} after the batch was sent (the 1 for the fraction of a
 * token Redis does not report). Times count from when the batch was sent, before Redis decided, so that they end
 * early rather than late.
 */
final class PrefetchBatch {

	/** The limiter's algorithm, which tells how long permits may be spent. */
	private final Algorithm algorithm;

	/** The limits the batch was taken under. */
	private final List<RateLimit> limits;

	/** Permits held here, not yet spent. */
	private long held;

	/** When the batch was sent to Redis, in nanoseconds. */
	private long sentAt;

	/** When its answer came back, in nanoseconds. */
	private long receivedAt;

	/** The decisions of the batch, as Redis told them: remaining after the batch was taken. */
	private List<RateLimitDecision> known = List.of();

	/** When a permit was last spent, or the batch came, in nanoseconds. */
	private long lastUsed;

	/** Until when calls are decided one by one, Redis having refused a batch, in nanoseconds; 0 for none. */
	private long perRequestUntil;

	private boolean perRequest;

	/** The batch's fetch while it is in flight, completed when its answer is known here. */
	private @Nullable CompletableFuture<Void> fetch;

	/** Whether the batch was dropped from its limiter's map: a caller that holds it looks it up again. */
	private boolean retired;

	PrefetchBatch(Algorithm algorithm, List<RateLimit> limits) {
		this.algorithm = algorithm;
		this.limits = limits;
	}

	boolean retired() {
		return this.retired;
	}

	void retire() {
		this.retired = true;
	}

	@Nullable CompletableFuture<Void> fetch() {
		return this.fetch;
	}

	long held() {
		return this.held;
	}

	long lastUsed() {
		return this.lastUsed;
	}

	/** Whether calls are decided one by one at {@code now}: Redis refused a batch that could not yet be granted. */
	boolean perRequest(long now) {
		return this.perRequest && now - this.perRequestUntil < 0;
	}

	/**
	 * Spends {@code permits} of those held, when they are held and may still be spent.
	 * @return the decisions to announce ({@link #announced(long)}); or {@code null} when the batch cannot pay for the
	 * call
	 */
	@Nullable List<RateLimitDecision> spend(long permits, long now) {
		if (this.held < permits || !spendable(now)) {
			return null;
		}
		this.held -= permits;
		this.lastUsed = now;
		return announced(now);
	}

	/**
	 * The decisions to announce at {@code now}: the budget as last known here, that is what Redis left when it last
	 * granted a batch and what this instance still holds of it (never more than was left then, less what was spent here
	 * since), its reset counted down. What other instances took since is not known here.
	 */
	List<RateLimitDecision> announced(long now) {
		Duration elapsed = Duration.ofNanos(Math.max(now - this.receivedAt, 0));
		List<RateLimitDecision> decisions = new ArrayList<>(this.known.size());
		for (RateLimitDecision decision : this.known) {
			Duration resetAfter = decision.resetAfter().minus(elapsed);
			decisions.add(RateLimitDecision.allowed(decision.limit(), decision.remaining() + this.held,
					resetAfter.isNegative() ? Duration.ZERO : resetAfter));
		}
		return decisions;
	}

	/**
	 * Whether the permits held may still be spent at {@code now}.
	 */
	boolean spendable(long now) {
		return this.held > 0 && now - this.sentAt < spendableFor();
	}

	/**
	 * How long after the batch was sent its next permit may be spent, in nanoseconds: the shortest of its limits.
	 */
	private long spendableFor() {
		long shortest = Long.MAX_VALUE;
		for (int i = 0; i < this.known.size() && i < this.limits.size(); i++) {
			shortest = Math.min(shortest, spendableFor(this.limits.get(i), this.known.get(i)));
		}
		return (shortest == Long.MAX_VALUE) ? 0 : shortest;
	}

	private long spendableFor(RateLimit limit, RateLimitDecision decision) {
		long reset = saturatedNanos(decision.resetAfter());
		return switch (this.algorithm) {
			case FIXED_WINDOW -> reset;
			case SLIDING_WINDOW_COUNTER -> Math.max(reset - saturatedNanos(limit.window()), 0);
			case TOKEN_BUCKET, GCRA -> {
				long tokens = limit.burst() - decision.remaining() - 1 - this.held;
				yield (tokens <= 0) ? 0
						: (long) Math.floor((double) tokens * saturatedNanos(limit.window()) / limit.limit());
			}
			case SLIDING_WINDOW_LOG -> 0;
		};
	}

	/**
	 * Whether unspent permits given back now would reach the window they were counted in: always for the token
	 * bucket and GCRA (tokens go back to a bucket, never past full); for windows, only while the window has at least
	 * {@code margin} to run, since a give-back that arrives once the window ended goes to the next one.
	 */
	boolean mayGiveBack(long now, long margin) {
		if (this.algorithm.acceptsBurst()) {
			return true;
		}
		long windowEnds = Long.MAX_VALUE;
		for (int i = 0; i < this.known.size() && i < this.limits.size(); i++) {
			long reset = saturatedNanos(this.known.get(i).resetAfter());
			long end = (this.algorithm == Algorithm.FIXED_WINDOW) ? reset
					: reset - saturatedNanos(this.limits.get(i).window());
			windowEnds = Math.min(windowEnds, end);
		}
		return now - this.sentAt < windowEnds - margin;
	}

	/**
	 * Takes every permit held out of the batch, for them to be given back or to lapse.
	 * @return how many it held
	 */
	long takeHeld() {
		long taken = this.held;
		this.held = 0;
		return taken;
	}

	/** Marks the batch's fetch in flight. */
	CompletableFuture<Void> startFetch() {
		CompletableFuture<Void> fetch = new CompletableFuture<>();
		this.fetch = fetch;
		return fetch;
	}

	/**
	 * Keeps a batch Redis granted: what is left of it once the fetching call took its own permits; for a top-up, what
	 * the batch held with the top-up added ({@code permits} 0), counted from the top-up's decisions.
	 */
	void granted(long batch, long permits, List<RateLimitDecision> decisions, long sentAt, long receivedAt) {
		this.held = batch - permits;
		this.known = List.copyOf(decisions);
		this.sentAt = sentAt;
		this.receivedAt = receivedAt;
		this.lastUsed = receivedAt;
		this.perRequest = false;
		this.fetch = null;
	}

	/**
	 * Decides calls one by one until a batch could be granted again, as Redis told when it refused one.
	 */
	void refused(List<RateLimitDecision> decisions, long sentAt, long receivedAt) {
		Duration longest = Duration.ZERO;
		for (RateLimitDecision decision : decisions) {
			if (decision.retryAfter().compareTo(longest) > 0) {
				longest = decision.retryAfter();
			}
		}
		this.perRequest = true;
		this.perRequestUntil = sentAt + saturatedNanos(longest);
		this.lastUsed = receivedAt;
		this.fetch = null;
	}

	/** Ends a fetch that failed: the next call tries again. */
	void failed() {
		this.fetch = null;
	}

	/**
	 * Whether the batch holds nothing and decides nothing: it can be dropped.
	 */
	boolean idle(long now) {
		return this.held == 0 && this.fetch == null && !perRequest(now);
	}

	private static long saturatedNanos(Duration duration) {
		return Durations.saturatedNanos(duration);
	}

}

package dev.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimitKeys;

/**
 * One decision or check of one limiter, as its {@link RedisGuard} runs it: the script call, how its answer meets
 * the denial cache, and the fallback's decision while Redis cannot decide.
 */
final class SingleCall extends RedisGuard.Attempt<List<RateLimitDecision>> {

	private final LimiterScript script;

	/** Where a call that timed out gives back what Redis took for it all the same. */
	private final KeyState state;

	private final String key;

	private final List<RateLimit> limits;

	private final PreparedLimits.Prepared prepared;

	private final long permits;

	/** Whether to only tell what a call would be told (a check), charging nothing. */
	private final boolean peek;

	private @Nullable String denialKey;

	SingleCall(LimiterScript script, KeyState state, String key, List<RateLimit> limits, PreparedLimits.Prepared prepared,
			long permits, boolean peek) {
		this.script = script;
		this.state = state;
		this.key = key;
		this.limits = limits;
		this.prepared = prepared;
		this.permits = permits;
		this.peek = peek;
	}

	@Override
	String denialKey() {
		String denialKey = this.denialKey;
		if (denialKey == null) {
			denialKey = this.script.keys.denial(this.key, this.prepared.denialSuffix());
			this.denialKey = denialKey;
		}
		return denialKey;
	}

	@Override
	long permits() {
		return this.permits;
	}

	@Override
	List<?> run() {
		return this.script.run(this.key, this.limits, this.prepared, scriptPermits(), true, this::undo);
	}

	@Override
	CompletableFuture<List<?>> runAsync() {
		return this.script.runAsync(this.key, this.limits, this.prepared, scriptPermits(), true, this::undo);
	}

	/** A decision that took its permits gives them back, through the refund every limiter has; a check took none. */
	@Override
	void undo(List<?> reply) {
		if (this.peek || !allowed(decisions(reply))) {
			return;
		}
		this.state.refundAsync(this.key, this.limits, this.permits);
	}

	static boolean allowed(List<RateLimitDecision> decisions) {
		for (RateLimitDecision decision : decisions) {
			if (!decision.allowed()) {
				return false;
			}
		}
		return true;
	}

	/** Negative permits: the script tells what a call for that many would be told, and charges nothing. */
	private long scriptPermits() {
		return this.peek ? -this.permits : this.permits;
	}

	@Override
	List<RateLimitDecision> decisions(List<?> reply) {
		return RedisScripts.decisions(reply, this.limits);
	}

	@Override
	List<RateLimitDecision> remembered(List<RateLimitDecision> decisions) {
		return decisions;
	}

	@Override
	void answered(LocalDenialCache denials, long sentAt, List<RateLimitDecision> decisions) {
		String denialKey = denialKey();
		for (RateLimitDecision decision : decisions) {
			if (!decision.allowed()) {
				denials.remember(denialKey, this.permits, sentAt, decisions);
				break;
			}
		}
		denials.observe(denialKey, sentAt, decisions);
	}

	@Override
	CompletableFuture<List<RateLimitDecision>> unavailable(@Nullable RateLimiter fallback,
			@Nullable RuntimeException cause) {
		if (fallback == null) {
			return super.unavailable(null, cause);
		}
		String fallbackKey = RateLimitKeys.local(this.script.algorithm, this.key);
		try {
			return CompletableFuture.completedFuture(this.peek ? fallback.check(fallbackKey, this.limits, this.permits)
					: fallback.tryAcquire(fallbackKey, this.limits, this.permits));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}

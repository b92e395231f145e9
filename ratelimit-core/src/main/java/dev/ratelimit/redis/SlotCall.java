package dev.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.RateLimiter;

/**
 * One slot of work in flight taken by a {@link RedisRateLimiter}, as its {@link RedisGuard} runs it: the
 * {@code concurrency} script, no denial cache (slots come back long before a refusal's retry time), and the
 * fallback's slot while Redis cannot decide.
 */
final class SlotCall extends RedisGuard.Attempt<RateLimitSlot> {

	private final RedisRateLimiter limiter;

	private final String key;

	private final RateLimit concurrency;

	private final String id;

	SlotCall(RedisRateLimiter limiter, String key, RateLimit concurrency, String id) {
		this.limiter = limiter;
		this.key = key;
		this.concurrency = concurrency;
		this.id = id;
	}

	@Override
	boolean remembers() {
		return false;
	}

	@Override
	String denialKey() {
		return this.limiter.slotKey(this.key);
	}

	@Override
	long permits() {
		return 1;
	}

	@Override
	List<?> run() {
		return this.limiter.script.runner.run(RedisScripts.CONCURRENCY, keys(), args(), this::undo);
	}

	@Override
	CompletableFuture<List<?>> runAsync() {
		return this.limiter.script.runner.runAsync(RedisScripts.CONCURRENCY, keys(), args(), this::undo);
	}

	/**
	 * A slot taken for a caller that gave up is given back. Its release was sent when the call timed out, and runs
	 * after it on the same connection; this one holds when the two travel apart (a new connection, a Cluster
	 * redirection).
	 */
	@Override
	void undo(List<?> reply) {
		if (RedisScripts.decisions(reply, List.of(this.concurrency)).get(0).allowed()) {
			this.limiter.forgetSlot(this.key, this.id);
		}
	}

	private List<String> keys() {
		return List.of(this.limiter.slotKey(this.key));
	}

	private List<String> args() {
		return args(this.limiter, this.concurrency, this.id);
	}

	/** The arguments of the {@code concurrency} script: now, one slot, the limit, the lease in µs, the slot's id. */
	static List<String> args(RedisRateLimiter limiter, RateLimit concurrency, String id) {
		return List.of(RedisScripts.now(limiter.script.clock), "1", Long.toString(concurrency.limit()),
				Long.toString(LimiterScript.micros(concurrency.window())), id);
	}

	@Override
	RateLimitSlot decisions(List<?> reply) {
		RateLimitDecision decision = RedisScripts.decisions(reply, List.of(this.concurrency)).get(0);
		return decision.allowed() ? RateLimitSlot.held(this.limiter, this.key, this.concurrency, this.id, decision)
				: RateLimitSlot.unheld(this.key, this.concurrency, decision);
	}

	@Override
	RateLimitSlot remembered(List<RateLimitDecision> decisions) {
		return RateLimitSlot.unheld(this.key, this.concurrency, decisions.get(0));
	}

	@Override
	void answered(LocalDenialCache denials, long sentAt, RateLimitSlot decisions) {
		// slots are never remembered
	}

	@Override
	CompletableFuture<RateLimitSlot> unavailable(@Nullable RateLimiter fallback, @Nullable RuntimeException cause) {
		if (cause != null) {
			// Redis was asked and did not answer in time: it may have taken the slot all the same
			this.limiter.forgetSlot(this.key, this.id);
		}
		if (fallback == null) {
			return super.unavailable(null, cause);
		}
		try {
			return CompletableFuture.completedFuture(fallback.tryAcquireSlot(RateLimitKeys.localSlots(this.key),
					this.concurrency.limit(), this.concurrency.window()));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}

package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;

import org.springframework.util.Assert;

/**
 * What a limiter does to a key's state outside a decision: read it, give permits back, charge past the limit, reset
 * it, read, start or lift its block. None goes through the denial cache or the fallback; those that change the state
 * forget the refusals this instance remembers for the key. A charge, which a count-only rule sends for every request
 * it counts, goes through the circuit breaker as a decision does: while it is open Redis is not called.
 */
final class KeyState {

	/**
	 * The most sliding-log entries one call of {@code charge.lua} writes: a charge of more (at most the limit's, 10,000,
	 * are kept) is sent in several calls, one after another, each well under a millisecond of Redis's time.
	 */
	static final long LOG_ENTRIES_PER_CALL = 200;

	private final LimiterScript script;

	private final PreparedLimits prepared;

	private final @Nullable LocalDenialCache denials;

	private final @Nullable CircuitBreaker circuitBreaker;

	KeyState(LimiterScript script, PreparedLimits prepared, @Nullable LocalDenialCache denials,
			@Nullable CircuitBreaker circuitBreaker) {
		this.script = script;
		this.prepared = prepared;
		this.denials = denials;
		this.circuitBreaker = circuitBreaker;
	}

	/** The same operations on a limiter's blocking form. */
	KeyState blocking(LimiterScript blocking) {
		return new KeyState(blocking, this.prepared, this.denials, this.circuitBreaker);
	}

	List<RateLimitDecision> inspect(String key, List<RateLimit> limits) {
		Assert.notNull(key, "key must not be null");
		PreparedLimits.Prepared prepared = this.prepared.of(limits, 1);
		try {
			// negative permits: the script tells what a call for one would be told, and writes nothing
			return RedisScripts.decisions(this.script.run(key, limits, prepared, -1, false), limits);
		}
		catch (RuntimeException ex) {
			throw RedisGuard.unavailable("Redis could not read the state: " + ex, ex);
		}
	}

	CompletableFuture<List<RateLimitDecision>> inspectAsync(String key, List<RateLimit> limits) {
		Assert.notNull(key, "key must not be null");
		PreparedLimits.Prepared prepared = this.prepared.of(limits, 1);
		CompletableFuture<List<?>> reply;
		try {
			reply = this.script.runAsync(key, limits, prepared, -1, false);
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		return CallerLoops.backOnCaller(reply.handle((answer, failure) -> {
			if (failure != null) {
				Throwable cause = Futures.unwrap(failure);
				throw RedisGuard.unavailable("Redis could not read the state: " + cause, cause);
			}
			return RedisScripts.decisions(answer, limits);
		}));
	}

	void refund(String key, List<RateLimit> limits, long permits) {
		Futures.join(refundAsync(key, limits, permits));
	}

	CompletableFuture<Void> refundAsync(String key, List<RateLimit> limits, long permits) {
		Assert.notNull(key, "key must not be null");
		PreparedLimits.Prepared prepared = this.prepared.of(limits, permits);
		List<String> args = RedisScripts.args(this.script.clock, permits, prepared.args(), 1);
		args.add(this.script.algorithm.id());
		CompletableFuture<List<?>> reply;
		try {
			reply = this.script.runner.runAsync(RedisScripts.REFUND, this.script.keys.forLimits(key, limits), args);
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		return CallerLoops.backOnCaller(reply.handle((answer, failure) -> {
			if (failure != null) {
				Throwable cause = Futures.unwrap(failure);
				throw RedisGuard.unavailable("Redis could not take the permits back: " + cause, cause);
			}
			// a refusal remembered until now would refuse what the budget allows again
			forgetDenials(key);
			return null;
		}));
	}

	void charge(String key, List<RateLimit> limits, long permits) {
		Futures.join(chargeAsync(key, limits, permits));
	}

	CompletableFuture<Void> chargeAsync(String key, List<RateLimit> limits, long permits) {
		Assert.notNull(key, "key must not be null");
		RateLimiter.checkCost("permits", permits, 1);
		// past the limit: checked like a call of one permit, charged the whole
		PreparedLimits.Prepared prepared = this.prepared.of(limits, 1);
		CircuitBreaker breaker = this.circuitBreaker;
		if (breaker != null && !breaker.tryAcquirePermission()) {
			return CompletableFuture.failedFuture(RedisGuard.unavailable(null));
		}
		CompletableFuture<List<?>> reply;
		if (this.script.algorithm == Algorithm.SLIDING_WINDOW_LOG && permits > LOG_ENTRIES_PER_CALL) {
			// the log keeps at most its limit's entries (charge.lua): more would change no decision. They are
			// written LOG_ENTRIES_PER_CALL at a time, so that no script call keeps Redis busy for long
			long entries = Math.min(permits, largestLimit(limits));
			reply = chargeOnce(key, limits, prepared, Math.min(entries, LOG_ENTRIES_PER_CALL));
			for (long sent = LOG_ENTRIES_PER_CALL; sent < entries; sent += LOG_ENTRIES_PER_CALL) {
				long part = Math.min(LOG_ENTRIES_PER_CALL, entries - sent);
				reply = reply.thenCompose((ignored) -> chargeOnce(key, limits, prepared, part));
			}
		}
		else {
			reply = chargeOnce(key, limits, prepared, permits);
		}
		return CallerLoops.backOnCaller(reply.handle((answer, failure) -> {
			if (failure != null) {
				Throwable cause = Futures.unwrap(failure);
				if (breaker != null) {
					breaker.onFailure(cause);
				}
				throw RedisGuard.unavailable("Redis could not take the permits: " + cause, cause);
			}
			if (breaker != null) {
				breaker.onSuccess();
			}
			return null;
		}));
	}

	private CompletableFuture<List<?>> chargeOnce(String key, List<RateLimit> limits, PreparedLimits.Prepared prepared,
			long permits) {
		List<String> args = RedisScripts.args(this.script.clock, permits, prepared.args(), 1);
		args.add(this.script.algorithm.id());
		try {
			return this.script.runner.runAsync(RedisScripts.CHARGE, this.script.keys.forLimits(key, limits), args);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static long largestLimit(List<RateLimit> limits) {
		long largest = 1;
		for (RateLimit limit : limits) {
			largest = Math.max(largest, limit.limit());
		}
		return largest;
	}

	long reset(String key, List<RateLimit> limits) {
		Assert.notNull(key, "key must not be null");
		this.prepared.of(limits, 1);
		forgetDenials(key);
		try {
			return RedisScripts.number(
					this.script.runner.run(RedisScripts.RESET, this.script.keys.forLimits(key, limits), List.of()), 0);
		}
		catch (RuntimeException ex) {
			throw RedisGuard.unavailable("Redis could not reset the key: " + ex, ex);
		}
	}

	/** Returns how long a key stays blocked, or blocks it by hand for {@code length}, on a blocking limiter. */
	Duration blockState(String key, @Nullable Duration length) {
		Assert.notNull(key, "key must not be null");
		BlockPolicy policy = this.script.block;
		Assert.state(policy != null, "a limiter that blocks no key has no block state");
		List<String> args = List.of(RedisScripts.now(this.script.clock),
				(length != null) ? Long.toString(LimiterScript.micros(length)) : "",
				Long.toString(LimiterScript.micros(policy.blockFor())));
		try {
			List<?> reply = this.script.runner.run(RedisScripts.BLOCK_STATE, List.of(this.script.keys.block(key)), args);
			if (length != null) {
				forgetDenials(key);
			}
			return Duration.ofNanos(RedisScripts.number(reply, 0) * 1000);
		}
		catch (RuntimeException ex) {
			throw RedisGuard.unavailable("Redis could not " + ((length != null) ? "block" : "read the block of")
					+ " the key: " + ex, ex);
		}
	}

	/** Lifts a key's block on a blocking limiter. */
	boolean unblock(String key) {
		Assert.notNull(key, "key must not be null");
		forgetDenials(key);
		try {
			return RedisScripts.number(
					this.script.runner.run(RedisScripts.RESET, List.of(this.script.keys.block(key)), List.of()), 0) > 0;
		}
		catch (RuntimeException ex) {
			throw RedisGuard.unavailable("Redis could not unblock the key: " + ex, ex);
		}
	}

	private void forgetDenials(String key) {
		LocalDenialCache denials = this.denials;
		if (denials != null) {
			denials.forget(this.script.keys.denialPrefix(key));
		}
	}

}

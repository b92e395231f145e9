package dev.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterTimeoutException;
import dev.ratelimit.RateLimiterUnavailableException;

/**
 * The call protocol every Redis decision goes through, single decisions, decisions together and those
 * of blocking limiters alike: a refusal the denial cache remembers is answered from memory; else the
 * script runs through the circuit breaker, which hears of every call it let through; when Redis cannot
 * decide, the fallback decides, or the call fails with {@link RateLimiterUnavailableException}.
 * Synchronously (every stage completed before it returns) or not, on one path, so that the two cannot
 * drift apart.
 */
final class RedisGuard {

	final @Nullable CircuitBreaker circuitBreaker;

	final @Nullable LocalDenialCache denialCache;

	final @Nullable RateLimiter fallback;

	RedisGuard(@Nullable CircuitBreaker circuitBreaker, @Nullable LocalDenialCache denialCache,
			@Nullable RateLimiter fallback) {
		this.circuitBreaker = circuitBreaker;
		this.denialCache = denialCache;
		this.fallback = fallback;
	}

	/**
	 * Decides a call: from the denial cache, else in Redis through the circuit breaker, else from the
	 * fallback.
	 * @param async whether to hold no thread while Redis answers
	 */
	<T> CompletableFuture<T> decide(Attempt<T> attempt, boolean async) {
		LocalDenialCache denials = this.denialCache;
		if (denials == null || !attempt.remembers()) {
			return fromRedis(attempt, async, null, 0);
		}
		String denialKey = attempt.denialKey();
		long permits = attempt.permits();
		if (!async) {
			List<RateLimitDecision> cached = denials.lookup(denialKey, permits);
			if (cached != null) {
				return CompletableFuture.completedFuture(attempt.remembered(cached));
			}
			long sentAt = denials.now();
			try {
				return fromRedis(attempt, false, denials, sentAt);
			}
			finally {
				// callers waiting for this call read what was remembered, or ask Redis themselves
				denials.settle(denialKey);
			}
		}
		return denials.lookupAsync(denialKey, permits).thenCompose((cached) -> {
			if (cached != null) {
				return CompletableFuture.completedFuture(attempt.remembered(cached));
			}
			long sentAt = denials.now();
			return fromRedis(attempt, true, denials, sentAt)
				.whenComplete((decisions, failure) -> denials.settle(denialKey));
		});
	}

	private <T> CompletableFuture<T> fromRedis(Attempt<T> attempt, boolean async, @Nullable LocalDenialCache denials,
			long sentAt) {
		CircuitBreaker breaker = this.circuitBreaker;
		if (breaker != null && !breaker.tryAcquirePermission()) {
			return attempt.unavailable(this.fallback, null);
		}
		if (!async) {
			// the same steps as below, without a future per step
			List<?> answer;
			try {
				answer = attempt.run();
			}
			catch (RuntimeException | Error ex) {
				return onReply(attempt, null, ex, denials, sentAt);
			}
			return onReply(attempt, answer, null, denials, sentAt);
		}
		CompletableFuture<List<?>> reply;
		try {
			reply = attempt.runAsync();
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		return reply.handle((answer, failure) -> onReply(attempt, answer, failure, denials, sentAt))
			.thenCompose(Function.identity());
	}

	/**
	 * What a call Redis answered (or failed) is told; the breaker hears of every call it let through,
	 * errors and replies it cannot read too, or a probe would never report back. Only Redis's answers
	 * meet the denial cache, never a fallback's.
	 */
	private <T> CompletableFuture<T> onReply(Attempt<T> attempt, @Nullable List<?> answer,
			@Nullable Throwable failure, @Nullable LocalDenialCache denials, long sentAt) {
		CircuitBreaker breaker = this.circuitBreaker;
		if (failure != null) {
			Throwable cause = Futures.unwrap(failure);
			if (breaker != null) {
				breaker.onFailure(cause);
			}
			if (cause instanceof Error error) {
				throw error;
			}
			return attempt.unavailable(this.fallback, (RuntimeException) cause);
		}
		T decisions;
		try {
			if (answer == null) {
				throw new IllegalStateException("Unexpected reply from the rate-limit script: null");
			}
			decisions = attempt.decisions(answer);
		}
		catch (RuntimeException ex) {
			if (breaker != null) {
				breaker.onFailure(ex);
			}
			return attempt.unavailable(this.fallback, ex);
		}
		if (breaker != null) {
			breaker.onSuccess();
		}
		if (denials != null) {
			attempt.answered(denials, sentAt, decisions);
		}
		return CompletableFuture.completedFuture(decisions);
	}

	/**
	 * The failure of a call Redis could not decide: its cause, or the open breaker when Redis was not
	 * called.
	 */
	static RateLimiterUnavailableException unavailable(@Nullable RuntimeException cause) {
		if (cause == null) {
			return new RateLimiterUnavailableException("Redis is not called while its circuit breaker is open", null);
		}
		return unavailable("Redis could not decide: " + cause, cause);
	}

	/**
	 * The failure of a call Redis did not answer: a {@link RateLimiterTimeoutException} naming whose lateness it
	 * was when it timed out.
	 * @param message what could not be done, and why
	 * @param cause the failure of the script call
	 */
	static RateLimiterUnavailableException unavailable(String message, Throwable cause) {
		if (cause instanceof ScriptTimeoutException timeout) {
			return new RateLimiterTimeoutException(message, cause, timeout.culprit);
		}
		return new RateLimiterUnavailableException(message, cause);
	}

	/**
	 * What one guarded call does in Redis, and how its answers meet the denial cache.
	 * @param <T> the decisions the call comes to
	 */
	abstract static class Attempt<T> {

		/**
		 * Whether the denial cache takes part: not for slots of work in flight, which are given back long before
		 * a refusal's retry time.
		 */
		boolean remembers() {
			return true;
		}

		/** The key the denial cache knows the call by. */
		abstract String denialKey();

		/** The permits the call takes, as the denial cache compares them. */
		abstract long permits();

		/** Runs the script and waits for its reply. */
		abstract List<?> run();

		/** Runs the script without holding the caller's thread. */
		abstract CompletableFuture<List<?>> runAsync();

		/**
		 * Undoes what Redis did for a call whose caller had been told of a timeout when its reply came (Redis was
		 * paused, or busy, past the timeout): what it took is given back, so that a call its caller gave up on
		 * charges nothing. Runs on Lettuce's I/O thread: it sends, and never waits.
		 * @param reply the script's reply
		 */
		abstract void undo(List<?> reply);

		/** Reads the script's reply; a reply it cannot read throws. */
		abstract T decisions(List<?> reply);

		/** What a refusal the denial cache remembers comes to. */
		abstract T remembered(List<RateLimitDecision> decisions);

		/** Tells the denial cache of Redis's answer: its refusals, and what it observed. */
		abstract void answered(LocalDenialCache denials, long sentAt, T decisions);

		/**
		 * What the call comes to when Redis cannot decide: the fallback's decision, or a failure.
		 * @param fallback the guard's fallback, if any
		 * @param cause why, or {@code null} when the breaker kept the call from Redis
		 */
		CompletableFuture<T> unavailable(@Nullable RateLimiter fallback, @Nullable RuntimeException cause) {
			return CompletableFuture.failedFuture(RedisGuard.unavailable(cause));
		}

	}

}

package dev.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.LocalDenialCache;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;

import org.springframework.util.Assert;

/**
 * Decides several calls of {@link RedisRateLimiter Redis limiters}, of any algorithms, all or nothing in
 * one round trip: when one call would be refused, no call is charged. For the rules of one request.
 */
public final class RedisRateLimiters {

	private RedisRateLimiters() {
	}

	/**
	 * Returns whether calls of these limiters can be decided together: all Redis limiters on one script
	 * runner whose scripts may take keys of any slots (not a Redis Cluster).
	 * @param limiters the limiters
	 * @return {@code true} when {@link #tryAcquireTogether} takes them
	 */
	public static boolean canDecideTogether(List<? extends RateLimiter> limiters) {
		if (limiters.isEmpty() || !(limiters.get(0) instanceof RedisRateLimiter first)) {
			return false;
		}
		for (RateLimiter limiter : limiters) {
			if (!(limiter instanceof RedisRateLimiter redis) || redis.runner != first.runner) {
				return false;
			}
		}
		return first.runner.takesKeysOfAnySlot();
	}

	/**
	 * Decides calls all or nothing in one script call: each is first asked what it would be told; only
	 * when every one would be granted is each made, in order. A call the first limiter's denial cache
	 * refuses is answered from memory.
	 * @param calls the calls, of limiters {@link #canDecideTogether} accepts
	 * @return the decisions of the calls up to the first that is refused (all of them when every one is
	 * granted): figures before any charge for a refused request, after the charges for a granted one
	 * @throws IllegalArgumentException when an argument is invalid
	 * @throws RateLimiterUnavailableException when Redis cannot decide
	 */
	public static List<List<RateLimitDecision>> tryAcquireTogether(List<Call> calls) {
		return RedisRateLimiter.join(together(calls, false));
	}

	/**
	 * Decides calls all or nothing in one script call, as {@link #tryAcquireTogether} does, without
	 * holding the caller's thread while Redis answers.
	 * @param calls the calls, of limiters {@link #canDecideTogether} accepts
	 * @return the decisions, as {@link #tryAcquireTogether} returns them, completed exceptionally with
	 * {@link RateLimiterUnavailableException} when Redis cannot decide
	 * @throws IllegalArgumentException when an argument is invalid
	 */
	public static CompletableFuture<List<List<RateLimitDecision>>> tryAcquireTogetherAsync(List<Call> calls) {
		return CallerLoops.backOnCaller(together(calls, true));
	}

	private static CompletableFuture<List<List<RateLimitDecision>>> together(List<Call> calls, boolean async) {
		Assert.notEmpty(calls, "calls must not be empty");
		List<PreparedLimits.Prepared> prepared = new ArrayList<>(calls.size());
		for (Call call : calls) {
			Assert.notNull(call.key(), "key must not be null");
			prepared.add(call.limiter().prepared.of(call.limits(), call.permits()));
		}
		RedisRateLimiter first = calls.get(0).limiter();
		LocalDenialCache denials = first.denialCache;
		if (denials == null) {
			return decide(first, calls, prepared, async);
		}
		String firstDenialKey = first.keys.denial(calls.get(0).key(), prepared.get(0).denialSuffix());
		long firstPermits = calls.get(0).permits();
		CompletableFuture<@Nullable List<RateLimitDecision>> cached = async
				? denials.lookupAsync(firstDenialKey, firstPermits)
				: CompletableFuture.completedFuture(denials.lookup(firstDenialKey, firstPermits));
		return cached.thenCompose((remembered) -> {
			if (remembered != null) {
				return CompletableFuture.completedFuture(List.of(remembered));
			}
			long sentAt = denials.now();
			return decide(first, calls, prepared, async).whenComplete((decisions, failure) -> {
				if (decisions != null) {
					denials.observe(firstDenialKey, sentAt, decisions.get(0));
					List<RateLimitDecision> last = decisions.get(decisions.size() - 1);
					if (last.stream().anyMatch((decision) -> !decision.allowed())) {
						// the call that was refused is refused from memory until it could be granted
						Call refused = calls.get(decisions.size() - 1);
						String refusedKey = refused.limiter().keys.denial(refused.key(),
								prepared.get(decisions.size() - 1).denialSuffix());
						denials.remember(refusedKey,
								refused.permits(), sentAt, last);
					}
				}
				// callers waiting for the first call's key read what was remembered, or ask Redis themselves
				denials.settle(firstDenialKey);
			});
		});
	}

	private static CompletableFuture<List<List<RateLimitDecision>>> decide(RedisRateLimiter first, List<Call> calls,
			List<PreparedLimits.Prepared> prepared, boolean async) {
		CircuitBreaker breaker = first.circuitBreaker;
		if (breaker != null && !breaker.tryAcquirePermission()) {
			return CompletableFuture.failedFuture(
					new RateLimiterUnavailableException("Redis is not called while its circuit breaker is open", null));
		}
		CompletableFuture<List<?>> reply;
		try {
			reply = run(calls, prepared, async);
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		return reply.thenApply(RedisRateLimiters::checked).handle((answer, failure) -> {
			if (failure != null) {
				Throwable cause = RedisRateLimiter.unwrap(failure);
				if (breaker != null) {
					breaker.onFailure(cause);
				}
				if (cause instanceof Error error) {
					throw error;
				}
				throw new RateLimiterUnavailableException("Redis could not decide: " + cause, cause);
			}
			if (breaker != null) {
				breaker.onSuccess();
			}
			int answered = (int) RedisScripts.number(answer, 0);
			List<List<RateLimitDecision>> decisions = new ArrayList<>(answered);
			int offset = 1;
			for (int c = 0; c < answered; c++) {
				Call call = calls.get(c);
				int size = 4 * call.limits().size();
				decisions.add(RedisScripts.decisions(answer.subList(offset, offset + size), call.limits()));
				offset += size;
			}
			return decisions;
		});
	}

	private static List<?> checked(List<?> reply) {
		if (reply == null || reply.isEmpty()) {
			throw new IllegalStateException("Unexpected reply from the rate-limit script: " + reply);
		}
		return reply;
	}

	private static CompletableFuture<List<?>> run(List<Call> calls, List<PreparedLimits.Prepared> prepared,
			boolean async) {
		List<String> keys = new ArrayList<>();
		List<String> args = new ArrayList<>();
		List<String> callArgs = new ArrayList<>();
		args.add(Integer.toString(calls.size()));
		for (int c = 0; c < calls.size(); c++) {
			Call call = calls.get(c);
			List<String> ownKeys = call.limiter().keys.forLimits(call.key(), call.limits());
			List<String> ownArgs = RedisScripts.args(call.limiter().clock, call.permits(), prepared.get(c).args(), 0);
			args.add(Integer.toString(call.limiter().algorithm().ordinal() + 1));
			args.add(Integer.toString(ownKeys.size()));
			args.add(Integer.toString(ownArgs.size()));
			keys.addAll(ownKeys);
			callArgs.addAll(ownArgs);
		}
		args.addAll(callArgs);
		RedisScriptRunner runner = calls.get(0).limiter().runner;
		return async ? runner.runAsync(RedisScripts.TOGETHER, keys, args)
				: CompletableFuture.completedFuture(runner.run(RedisScripts.TOGETHER, keys, args));
	}

	/**
	 * One call decided with others.
	 *
	 * @param limiter the limiter
	 * @param key whose budget is charged
	 * @param limits the limits
	 * @param permits how many permits to take
	 */
	public record Call(RedisRateLimiter limiter, String key, List<RateLimit> limits, long permits) {
	}

}

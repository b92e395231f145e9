package dev.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;

import org.springframework.util.Assert;

/**
 * Decides several calls of {@link RedisRateLimiter Redis limiters}, of any algorithms, all or nothing in
 * one round trip: when one call would be refused, no call is charged. For the rules of one request.
 *
 * @since 0.1.0
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
			if (!(limiter instanceof RedisRateLimiter redis) || redis.script.runner != first.script.runner) {
				return false;
			}
		}
		return first.script.runner.takesKeysOfAnySlot();
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
		return Futures.join(together(calls, false));
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
		List<PreparedLimits.@Nullable Prepared> prepared = new ArrayList<>(calls.size());
		for (Call call : calls) {
			Assert.notNull(call.key(), "key must not be null");
			if (call.slotId() != null) {
				Assert.isTrue(call.limits().size() == 1 && call.permits() == 1, "a slot call takes one slot under one limit");
				prepared.add(null);
			}
			else {
				prepared.add(call.limiter().prepared.of(call.limits(), call.permits()));
			}
		}
		return calls.get(0).limiter().guard.decide(new Together(calls, prepared), async).whenComplete((answers, failure) -> {
			if (failure != null && Futures.unwrap(failure).getCause() != null) {
				// Redis was asked and did not answer in time: it may have taken the slots all the same
				for (Call call : calls) {
					String slotId = call.slotId();
					if (slotId != null) {
						call.limiter().forgetSlot(call.key(), slotId);
					}
				}
			}
		});
	}

	/**
	 * Calls decided together, as the first limiter's guard runs them: the denial cache knows them by the
	 * first call, and remembers the call that was refused. No fallback decides them: a fallback decides
	 * each limiter's calls on its own.
	 */
	private static final class Together extends RedisGuard.Attempt<List<List<RateLimitDecision>>> {

		private final List<Call> calls;

		private final List<PreparedLimits.@Nullable Prepared> prepared;

		Together(List<Call> calls, List<PreparedLimits.@Nullable Prepared> prepared) {
			this.calls = calls;
			this.prepared = prepared;
		}

		@Override
		boolean remembers() {
			// the denial cache knows calls together by the first, which must take permits
			return this.prepared.get(0) != null;
		}

		@Override
		String denialKey() {
			return denialKey(0);
		}

		private String denialKey(int call) {
			PreparedLimits.Prepared prepared = this.prepared.get(call);
			Call made = this.calls.get(call);
			return (prepared != null) ? made.limiter().script.keys.denial(made.key(), prepared.denialSuffix())
					: made.limiter().slotKey(made.key());
		}

		@Override
		long permits() {
			return this.calls.get(0).permits();
		}

		@Override
		List<?> run() {
			List<String> keys = new ArrayList<>();
			return runner().run(RedisScripts.TOGETHER, keys, args(keys), this::undo);
		}

		@Override
		CompletableFuture<List<?>> runAsync() {
			List<String> keys = new ArrayList<>();
			return runner().runAsync(RedisScripts.TOGETHER, keys, args(keys), this::undo);
		}

		/**
		 * Calls granted together for a caller that gave up are each given back: permits refunded, slots released.
		 * A refusal took nothing (all or nothing).
		 */
		@Override
		void undo(List<?> reply) {
			List<List<RateLimitDecision>> decisions = decisions(reply);
			if (decisions.size() != this.calls.size() || !SingleCall.allowed(decisions.get(decisions.size() - 1))) {
				return;
			}
			for (Call call : this.calls) {
				String slotId = call.slotId();
				if (slotId != null) {
					call.limiter().forgetSlot(call.key(), slotId);
				}
				else {
					call.limiter().refundAsync(call.key(), call.limits(), call.permits());
				}
			}
		}

		private RedisScriptRunner runner() {
			return this.calls.get(0).limiter().script.runner;
		}

		/**
		 * The arguments (the number of calls, each call's algorithm, key count and argument count, then
		 * every call's arguments), adding every call's keys to {@code keys}.
		 */
		private List<String> args(List<String> keys) {
			List<String> args = new ArrayList<>();
			List<String> callArgs = new ArrayList<>();
			args.add(Integer.toString(this.calls.size()));
			for (int c = 0; c < this.calls.size(); c++) {
				Call call = this.calls.get(c);
				PreparedLimits.Prepared prepared = this.prepared.get(c);
				String slotId = call.slotId();
				List<String> ownKeys;
				List<String> ownArgs;
				if (prepared == null || slotId != null) {
					ownKeys = List.of(call.limiter().slotKey(call.key()));
					ownArgs = SlotCall.args(call.limiter(), call.limits().get(0), Objects.requireNonNull(slotId));
					args.add(Integer.toString(RedisScripts.CONCURRENCY_INDEX));
				}
				else {
					ownKeys = call.limiter().script.keys.forLimits(call.key(), call.limits());
					ownArgs = RedisScripts.args(call.limiter().script.clock, call.permits(), prepared.args(), 0);
					args.add(Integer.toString(call.limiter().algorithm().ordinal() + 1));
				}
				args.add(Integer.toString(ownKeys.size()));
				args.add(Integer.toString(ownArgs.size()));
				keys.addAll(ownKeys);
				callArgs.addAll(ownArgs);
			}
			args.addAll(callArgs);
			return args;
		}

		@Override
		List<List<RateLimitDecision>> decisions(List<?> reply) {
			if (reply.isEmpty()) {
				throw new IllegalStateException("Unexpected reply from the rate-limit script: " + reply);
			}
			int answered = (int) RedisScripts.number(reply, 0);
			List<List<RateLimitDecision>> decisions = new ArrayList<>(answered);
			int offset = 1;
			for (int c = 0; c < answered; c++) {
				Call call = this.calls.get(c);
				int size = 4 * call.limits().size();
				decisions.add(RedisScripts.decisions(reply.subList(offset, offset + size), call.limits()));
				offset += size;
			}
			return decisions;
		}

		@Override
		List<List<RateLimitDecision>> remembered(List<RateLimitDecision> decisions) {
			return List.of(decisions);
		}

		@Override
		void answered(LocalDenialCache denials, long sentAt, List<List<RateLimitDecision>> decisions) {
			denials.observe(denialKey(), sentAt, decisions.get(0));
			List<RateLimitDecision> last = decisions.get(decisions.size() - 1);
			int refused = decisions.size() - 1;
			if (this.prepared.get(refused) != null && last.stream().anyMatch((decision) -> !decision.allowed())) {
				// the call that was refused is refused from memory until it could be granted (not a slot: slots
				// come back long before a refusal's retry time)
				denials.remember(denialKey(refused), this.calls.get(refused).permits(), sentAt, last);
			}
		}

	}

	/**
	 * One call decided with others: permits under limits, or a slot of work in flight.
	 *
	 * @param limiter the limiter
	 * @param key whose budget is charged
	 * @param limits the limits; for a slot, one: the slots a key may hold and their lease
	 * @param permits how many permits to take; 1 for a slot
	 * @param slotId the id of the slot the call takes ({@link dev.ratelimit.RateLimitSlot#newId()}), or {@code null}
	 * for a call that takes permits
	 */
	public record Call(RedisRateLimiter limiter, String key, List<RateLimit> limits, long permits,
			@Nullable String slotId) {

		/**
		 * Creates a call that takes permits.
		 * @param limiter the limiter
		 * @param key whose budget is charged
		 * @param limits the limits
		 * @param permits how many permits to take
		 */
		public Call(RedisRateLimiter limiter, String key, List<RateLimit> limits, long permits) {
			this(limiter, key, limits, permits, null);
		}

	}

}

package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.RateLimiters;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * The Redis rate limiter of every algorithm: checks the arguments, builds the keys, and runs the
 * algorithm's Lua script in one {@code EVALSHA} round trip. Time comes from the Redis server unless a
 * {@link Clock} is given. Optionally a circuit breaker keeps calls away from a failing Redis, a local
 * denial cache refuses keys Redis refused without calling it again, and a fallback decides while
 * Redis cannot; without a fallback such a call fails with {@link RateLimiterUnavailableException}.
 * Build one with {@link #builder(Algorithm, RedisScriptRunner)}.
 *
 * @since 0.1.0
 */
public final class RedisRateLimiter implements RateLimiter, RateLimiters.Together {

	/** The key prefix of the seed's keys, {@code rate:<algorithm>:<id>}. */
	public static final String DEFAULT_KEY_PREFIX = "rate";

	/** The script calls of its decisions; read by RedisRateLimiters, which decides calls of several limiters together. */
	final LimiterScript script;

	/** The denial cache, circuit breaker and fallback every decision goes through. */
	final RedisGuard guard;

	/** The lists of limits the limiter has met, checked and turned into script arguments once. */
	final PreparedLimits prepared;

	/** Reads and changes a key's state outside a decision. */
	private final KeyState state;

	/** The keys of slots of work in flight: {@code <prefix>:concurrency:<id>}, whatever the algorithm. */
	private final RedisKeys slotKeys;

	private RedisRateLimiter(Builder builder) {
		this.script = new LimiterScript(builder.algorithm, builder.keyPrefix, builder.runner, builder.clock);
		this.guard = new RedisGuard(builder.circuitBreaker, builder.denialCache, builder.fallback);
		this.prepared = new PreparedLimits(builder.algorithm);
		this.state = new KeyState(this.script, this.prepared, builder.denialCache, builder.circuitBreaker);
		this.slotKeys = new RedisKeys(builder.keyPrefix, "concurrency");
	}

	/** A limiter like {@code limiter} that blocks refused keys: its keys always carry a hash tag. */
	private RedisRateLimiter(RedisRateLimiter limiter, BlockPolicy block) {
		this.script = limiter.script.blocking(block);
		this.guard = limiter.guard;
		this.prepared = limiter.prepared;
		this.state = limiter.state.blocking(this.script);
		this.slotKeys = limiter.slotKeys;
	}

	/**
	 * Starts a limiter that runs its scripts through {@code runner}.
	 * @param algorithm the algorithm
	 * @param runner runs the scripts, such as a {@link LettuceScriptRunner}
	 * @return the builder
	 */
	public static Builder builder(Algorithm algorithm, RedisScriptRunner runner) {
		return new Builder(algorithm, runner);
	}

	/**
	 * Starts a limiter that runs its scripts through a template, waiting as long as its client does.
	 * @param algorithm the algorithm
	 * @param redisTemplate the template
	 * @return the builder
	 */
	public static Builder builder(Algorithm algorithm, StringRedisTemplate redisTemplate) {
		return new Builder(algorithm, RedisScriptRunner.of(redisTemplate));
	}

	@Override
	public List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits) {
		return Futures.join(decide(key, limits, permits, false, false));
	}

	/**
	 * Tries to take {@code permits} for {@code key} under every one of {@code limits}, all or nothing, as
	 * {@link #tryAcquire(String, List, long)} does, without holding the caller's thread while Redis
	 * answers (when the runner can, as {@link LettuceScriptRunner} does): the same timeout, circuit
	 * breaker, denial cache and fallback apply.
	 * @param key whose budget is charged, any string
	 * @param limits the limits to enforce, with distinct windows
	 * @param permits how many permits to take
	 * @return one decision per limit, completed exceptionally with
	 * {@link RateLimiterUnavailableException} when Redis cannot decide and there is no fallback
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	@Override
	public CompletableFuture<List<RateLimitDecision>> tryAcquireAsync(String key, List<RateLimit> limits,
			long permits) {
		return CallerLoops.backOnCaller(decide(key, limits, permits, true, false));
	}

	/**
	 * Tells what a call for {@code permits} would be told now, charging nothing: from the denial cache when
	 * it remembers a refusal, else in Redis through the circuit breaker, else from the fallback, as
	 * {@link #tryAcquire(String, List, long)} decides. A refusal is remembered, and on a
	 * {@link #blocking(BlockPolicy) blocking} limiter it starts a block.
	 * @param key whose budget would be charged
	 * @param limits the limits, with distinct windows
	 * @param permits how many permits the call would take
	 * @return one decision per limit
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 * @throws RateLimiterUnavailableException when Redis cannot decide and there is no fallback
	 */
	@Override
	public List<RateLimitDecision> check(String key, List<RateLimit> limits, long permits) {
		return Futures.join(decide(key, limits, permits, false, true));
	}

	/**
	 * Tells what a call for {@code permits} would be told, as {@link #check} does, without holding the
	 * caller's thread while Redis answers.
	 * @param key whose budget would be charged
	 * @param limits the limits, with distinct windows
	 * @param permits how many permits the call would take
	 * @return one decision per limit, completed exceptionally with
	 * {@link RateLimiterUnavailableException} when Redis cannot decide and there is no fallback
	 * @throws IllegalArgumentException when an argument is invalid, before any remote call
	 */
	@Override
	public CompletableFuture<List<RateLimitDecision>> checkAsync(String key, List<RateLimit> limits, long permits) {
		return CallerLoops.backOnCaller(decide(key, limits, permits, true, true));
	}

	/**
	 * Returns a limiter sharing this one's Redis, clock, circuit breaker, denial cache and fallback, whose
	 * refusals block the refused key for a while: the block lives in Redis next to the key's state and is
	 * read in the same script call, so that every instance refuses the key with one round trip, and the
	 * denial cache answers a blocked key without one. Its keys carry a hash tag under one limit too
	 * ({@code <prefix>:<algorithm>:{<id>}:<window>}, the block {@code <prefix>:<algorithm>:{<id>}:block}),
	 * so that a key's state under it is not the state this limiter keeps.
	 * @param policy how long blocks last
	 * @return the blocking limiter
	 */
	@Override
	public BlockingRateLimiter blocking(BlockPolicy policy) {
		Assert.notNull(policy, "policy must not be null");
		return new RedisBlockingRateLimiter(new RedisRateLimiter(this, policy), policy);
	}

	/**
	 * Decides a call through the {@link RedisGuard}: from the denial cache when it remembers a refusal,
	 * else in Redis through the circuit breaker, else from the fallback.
	 * @param peek whether to only tell what a call would be told (a check), charging nothing
	 */
	private CompletableFuture<List<RateLimitDecision>> decide(String key, List<RateLimit> limits, long permits,
			boolean async, boolean peek) {
		Assert.notNull(key, "key must not be null");
		return this.guard.decide(
				new SingleCall(this.script, this.state, key, limits, this.prepared.of(limits, permits), permits, peek),
				async);
	}

	/**
	 * Returns the state of {@code key} under {@code limits} without taking anything: the permits
	 * {@code remaining} now, whether a call for one would be {@code allowed} and else its
	 * {@code retryAfter}, and {@code resetAfter}. Bypasses the denial cache and the fallback; fails when
	 * Redis cannot answer.
	 * @param key whose state to read
	 * @param limits the limits
	 * @return one decision per limit, for a call of one permit
	 * @throws IllegalArgumentException when an argument is invalid
	 * @throws RateLimiterUnavailableException when Redis cannot answer
	 */
	@Override
	public List<RateLimitDecision> inspect(String key, List<RateLimit> limits) {
		return this.state.inspect(key, limits);
	}

	/**
	 * Returns the state of {@code key} under {@code limits} as {@link #inspect} does, without holding the
	 * caller's thread while Redis answers.
	 * @param key whose state to read
	 * @param limits the limits
	 * @return one decision per limit, completed exceptionally with {@link RateLimiterUnavailableException}
	 * when Redis cannot answer
	 * @throws IllegalArgumentException when an argument is invalid
	 */
	@Override
	public CompletableFuture<List<RateLimitDecision>> inspectAsync(String key, List<RateLimit> limits) {
		return this.state.inspectAsync(key, limits);
	}

	/**
	 * Gives back permits a granted call took ({@link RateLimiter#refund}), in one script call, and forgets the
	 * refusals this instance remembers for the key.
	 * @throws RateLimiterUnavailableException when Redis cannot answer
	 */
	@Override
	public void refund(String key, List<RateLimit> limits, long permits) {
		this.state.refund(key, limits, permits);
	}

	/**
	 * Gives back permits as {@link #refund} does, without holding the caller's thread while Redis answers.
	 * @return completes when the permits are back, exceptionally with {@link RateLimiterUnavailableException}
	 * when Redis cannot answer
	 */
	@Override
	public CompletableFuture<Void> refundAsync(String key, List<RateLimit> limits, long permits) {
		return this.state.refundAsync(key, limits, permits);
	}

	/**
	 * Takes a slot of work in flight ({@link RateLimiter#tryAcquireSlot}) in one script call: the slots of a key
	 * are a sorted set {@code <prefix>:concurrency:<id>} of slot ids scored by the end of their leases, whatever
	 * the limiter's algorithm. Through the circuit breaker and, while Redis cannot decide, the fallback (a
	 * {@link dev.ratelimit.LocalRateLimiter} holds slots in this instance's memory); never through the denial
	 * cache.
	 * @throws RateLimiterUnavailableException when Redis cannot decide and there is no fallback
	 */
	@Override
	public RateLimitSlot tryAcquireSlot(String key, long limit, Duration lease) {
		return Futures.join(slot(key, limit, lease, false));
	}

	/**
	 * Takes a slot of work in flight as {@link #tryAcquireSlot} does, without holding the caller's thread while
	 * Redis answers.
	 */
	@Override
	public CompletableFuture<RateLimitSlot> tryAcquireSlotAsync(String key, long limit, Duration lease) {
		return CallerLoops.backOnCaller(slot(key, limit, lease, true));
	}

	private CompletableFuture<RateLimitSlot> slot(String key, long limit, Duration lease, boolean async) {
		Assert.notNull(key, "key must not be null");
		RateLimit concurrency = RateLimitSlot.concurrency(limit, lease);
		return this.guard.decide(new SlotCall(this, key, concurrency, RateLimitSlot.newId()), async);
	}

	@Override
	public CompletableFuture<Boolean> renewSlotAsync(RateLimitSlot slot) {
		return slotScript(slot, "renew").thenApply((held) -> held);
	}

	@Override
	public CompletableFuture<Void> releaseSlotAsync(RateLimitSlot slot) {
		return slotScript(slot, "release").thenApply((held) -> null);
	}

	private CompletableFuture<Boolean> slotScript(RateLimitSlot slot, String operation) {
		String id = slot.id();
		Assert.isTrue(id != null, "the slot holds nothing");
		List<String> args = List.of(RedisScripts.now(this.script.clock), "1", operation, id,
				Long.toString(LimiterScript.micros(slot.lease())));
		CompletableFuture<List<?>> reply;
		try {
			reply = this.script.runner.runAsync(RedisScripts.SLOT, List.of(slotKey(slot.key())), args);
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		return CallerLoops.backOnCaller(reply.handle((answer, failure) -> {
			if (failure != null) {
				Throwable cause = Futures.unwrap(failure);
				throw RedisGuard.unavailable("Redis could not " + operation + " the slot: " + cause, cause);
			}
			return RedisScripts.number(answer, 0) == 1;
		}));
	}

	/**
	 * Gives back a slot whose call failed, without waiting: a call that timed out may still have taken it in Redis,
	 * where it would count until its lease ends.
	 */
	void forgetSlot(String key, String id) {
		List<String> args = List.of(RedisScripts.now(this.script.clock), "1", "release", id, "0");
		try {
			this.script.runner.runAsync(RedisScripts.SLOT, List.of(slotKey(key)), args)
				.whenComplete((answer, failure) -> {
					// nothing to do either way: the slot's lease ends it otherwise
				});
		}
		catch (RuntimeException ex) {
			// the lease ends it
		}
	}

	/**
	 * Returns the Redis key that holds the slots of work in flight of {@code id}: {@code <prefix>:concurrency:<id>}.
	 * @param id the caller's key
	 * @return the Redis key
	 */
	public String slotKey(String id) {
		return this.slotKeys.single(id);
	}

	/**
	 * Takes permits whatever the budget holds ({@link RateLimiter#charge}), in one script call, through the circuit
	 * breaker: while it is open, Redis is not called.
	 * @throws RateLimiterUnavailableException when Redis cannot answer, or the circuit breaker is open
	 */
	@Override
	public void charge(String key, List<RateLimit> limits, long permits) {
		this.state.charge(key, limits, permits);
	}

	/**
	 * Takes permits as {@link #charge} does, without holding the caller's thread while Redis answers.
	 * @return completes when the permits are taken, exceptionally with {@link RateLimiterUnavailableException} when
	 * Redis cannot answer
	 */
	@Override
	public CompletableFuture<Void> chargeAsync(String key, List<RateLimit> limits, long permits) {
		return this.state.chargeAsync(key, limits, permits);
	}

	/**
	 * Deletes the state of {@code key} under {@code limits}, so that it is back to full at once, and
	 * forgets the rejections this instance remembers for it. Other instances may refuse it from their
	 * own memory until the retry time they were given.
	 * @param key whose state to delete
	 * @param limits the limits
	 * @return how many Redis keys were deleted
	 * @throws RateLimiterUnavailableException when Redis cannot answer
	 */
	@Override
	public long reset(String key, List<RateLimit> limits) {
		return this.state.reset(key, limits);
	}

	@Override
	public Algorithm algorithm() {
		return this.script.algorithm;
	}

	/**
	 * Returns whether this limiter decides calls of these limiters together ({@link RedisRateLimiters}): all
	 * Redis limiters on this one's script runner, not on a Redis Cluster.
	 */
	@Override
	public boolean decidesTogetherWith(List<? extends RateLimiter> limiters) {
		return !limiters.isEmpty() && limiters.get(0) == this && RedisRateLimiters.canDecideTogether(limiters);
	}

	@Override
	public List<List<RateLimitDecision>> tryAcquireTogether(List<RateLimiters.Call> calls) {
		return RedisRateLimiters.tryAcquireTogether(redisCalls(calls));
	}

	@Override
	public CompletableFuture<List<List<RateLimitDecision>>> tryAcquireTogetherAsync(List<RateLimiters.Call> calls) {
		return RedisRateLimiters.tryAcquireTogetherAsync(redisCalls(calls));
	}

	private static List<RedisRateLimiters.Call> redisCalls(List<RateLimiters.Call> calls) {
		List<RedisRateLimiters.Call> redis = new ArrayList<>(calls.size());
		for (RateLimiters.Call call : calls) {
			if (!(call.limiter() instanceof RedisRateLimiter limiter)) {
				throw new IllegalArgumentException("every call must be of a RedisRateLimiter, but one was of "
						+ call.limiter().getClass().getName());
			}
			redis.add(new RedisRateLimiters.Call(limiter, call.key(), call.limits(), call.permits(), call.slotId()));
		}
		return redis;
	}

	/**
	 * Returns the Redis key that holds the state of {@code id} under a single limit, for operators
	 * looking for it: {@code <prefix>:<algorithm>:<id>}, the id as {@link dev.ratelimit.RateLimitKeys#segment(String)}
	 * renders it. Under several limits each has {@code <prefix>:<algorithm>:{<id>}:<window>}.
	 * @param id the caller's key
	 * @return the Redis key
	 */
	public String redisKey(String id) {
		return this.script.keys.single(id);
	}

	/**
	 * Returns how long a key stays blocked, or blocks it by hand for {@code length}, on a blocking limiter.
	 */
	Duration blockState(String key, @Nullable Duration length) {
		return this.state.blockState(key, length);
	}

	/**
	 * Lifts a key's block on a blocking limiter.
	 */
	boolean unblock(String key) {
		return this.state.unblock(key);
	}

	/**
	 * Builds a {@link RedisRateLimiter}; every part but the algorithm and the runner is optional.
	 */
	public static final class Builder {

		private final Algorithm algorithm;

		private final RedisScriptRunner runner;

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private @Nullable Clock clock;

		private @Nullable CircuitBreaker circuitBreaker;

		private @Nullable RateLimiter fallback;

		private @Nullable LocalDenialCache denialCache;

		private Builder(Algorithm algorithm, RedisScriptRunner runner) {
			Assert.notNull(algorithm, "algorithm must not be null");
			Assert.notNull(runner, "runner must not be null");
			this.algorithm = algorithm;
			this.runner = runner;
		}

		/**
		 * Sets the first segment of every key, {@code rate} by default.
		 * @param keyPrefix 1 to 128 letters, digits or {@code . _ : @ / + = -}
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			this.keyPrefix = RedisKeys.checkPrefix(keyPrefix);
			return this;
		}

		/**
		 * Sets the time source; by default, and with {@code null}, the Redis server's {@code TIME}.
		 * @param clock the clock, or {@code null}
		 * @return this builder
		 */
		public Builder clock(@Nullable Clock clock) {
			this.clock = clock;
			return this;
		}

		/**
		 * Sets a circuit breaker that keeps calls away from a failing Redis for a while.
		 * @param circuitBreaker the breaker, or {@code null} for none
		 * @return this builder
		 */
		public Builder circuitBreaker(@Nullable CircuitBreaker circuitBreaker) {
			this.circuitBreaker = circuitBreaker;
			return this;
		}

		/**
		 * Sets the limiter that decides while Redis cannot, such as a
		 * {@link dev.ratelimit.LocalRateLimiter}; without one such calls fail with
		 * {@link RateLimiterUnavailableException}.
		 * @param fallback the fallback, or {@code null} for none
		 * @return this builder
		 */
		public Builder fallback(@Nullable RateLimiter fallback) {
			this.fallback = fallback;
			return this;
		}

		/**
		 * Sets a cache that refuses keys Redis refused, without a call, until they could be granted.
		 * @param denialCache the cache, or {@code null} for none
		 * @return this builder
		 */
		public Builder denialCache(@Nullable LocalDenialCache denialCache) {
			this.denialCache = denialCache;
			return this;
		}

		/**
		 * Builds the limiter.
		 * @return the limiter
		 */
		public RedisRateLimiter build() {
			return new RedisRateLimiter(this);
		}

	}

}

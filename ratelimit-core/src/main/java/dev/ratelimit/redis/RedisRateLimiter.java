package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.LocalDenialCache;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimiters;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
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

	private final Algorithm algorithm;

	private final RedisScripts scripts;

	// read by RedisRateLimiters, which decides calls of several limiters together
	final RedisKeys keys;

	final RedisScriptRunner runner;

	final @Nullable Clock clock;

	/** The denial cache, circuit breaker and fallback every decision goes through. */
	final RedisGuard guard;

	/** How long a refused key stays blocked; {@code null} for a limiter that blocks no key. */
	private final @Nullable BlockPolicy block;

	/** The block policy's script arguments, after the limits'; empty for a limiter that blocks no key. */
	private final List<String> blockArgs;

	/** The lists of limits the limiter has met, checked and turned into script arguments once. */
	final PreparedLimits prepared;

	private RedisRateLimiter(Builder builder) {
		this.algorithm = builder.algorithm;
		this.scripts = RedisScripts.of(builder.algorithm);
		this.keys = new RedisKeys(builder.keyPrefix, this.scripts.keySegment());
		this.runner = builder.runner;
		this.clock = builder.clock;
		this.guard = new RedisGuard(builder.circuitBreaker, builder.denialCache, builder.fallback);
		this.block = null;
		this.blockArgs = List.of();
		this.prepared = new PreparedLimits(builder.algorithm);
	}

	/** A limiter like {@code limiter} that blocks refused keys: its keys always carry a hash tag. */
	private RedisRateLimiter(RedisRateLimiter limiter, BlockPolicy block) {
		this.algorithm = limiter.algorithm;
		this.scripts = limiter.scripts;
		this.keys = limiter.keys.blocking();
		this.runner = limiter.runner;
		this.clock = limiter.clock;
		this.guard = limiter.guard;
		this.block = block;
		this.blockArgs = List.of(Long.toString(micros(block.blockFor())), Double.toString(block.multiplier()),
				Long.toString(micros(block.max())));
		this.prepared = limiter.prepared;
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
		return join(decide(key, limits, permits, false, false));
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
		return join(decide(key, limits, permits, false, true));
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
		return this.guard.decide(new Single(key, limits, this.prepared.of(limits, permits), permits, peek), async);
	}

	/** One call of this limiter, as the guard runs it. */
	private final class Single extends RedisGuard.Attempt<List<RateLimitDecision>> {

		private final String key;

		private final List<RateLimit> limits;

		private final PreparedLimits.Prepared prepared;

		private final long permits;

		private final boolean peek;

		private @Nullable String denialKey;

		Single(String key, List<RateLimit> limits, PreparedLimits.Prepared prepared, long permits, boolean peek) {
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
				denialKey = RedisRateLimiter.this.keys.denial(this.key, this.prepared.denialSuffix());
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
			return RedisRateLimiter.this.runner.run(script(), scriptKeys(this.key, this.limits), args());
		}

		@Override
		CompletableFuture<List<?>> runAsync() {
			return RedisRateLimiter.this.runner.runAsync(script(), scriptKeys(this.key, this.limits), args());
		}

		/** Negative permits: the script tells what a call for that many would be told, and charges nothing. */
		private List<String> args() {
			return scriptArgs(this.prepared, this.peek ? -this.permits : this.permits, true);
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
			String fallbackKey = RateLimitKeys.local(RedisRateLimiter.this.algorithm, this.key);
			try {
				return CompletableFuture.completedFuture(this.peek ? fallback.check(fallbackKey, this.limits, this.permits)
						: fallback.tryAcquire(fallbackKey, this.limits, this.permits));
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

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
		Assert.notNull(key, "key must not be null");
		PreparedLimits.Prepared prepared = this.prepared.of(limits, 1);
		try {
			// negative permits: the script tells what a call for one would be told, and writes nothing
			return read(key, limits, prepared, -1);
		}
		catch (RuntimeException ex) {
			throw new RateLimiterUnavailableException("Redis could not read the state: " + ex, ex);
		}
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
		Assert.notNull(key, "key must not be null");
		PreparedLimits.Prepared prepared = this.prepared.of(limits, 1);
		CompletableFuture<List<?>> reply;
		try {
			reply = this.runner.runAsync(script(), scriptKeys(key, limits), scriptArgs(prepared, -1, false));
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		return CallerLoops.backOnCaller(reply.handle((answer, failure) -> {
			if (failure != null) {
				Throwable cause = unwrap(failure);
				throw new RateLimiterUnavailableException("Redis could not read the state: " + cause, cause);
			}
			return RedisScripts.decisions(answer, limits);
		}));
	}

	/**
	 * Gives back permits a granted call took ({@link RateLimiter#refund}), in one script call, and forgets the
	 * refusals this instance remembers for the key.
	 * @throws RateLimiterUnavailableException when Redis cannot answer
	 */
	@Override
	public void refund(String key, List<RateLimit> limits, long permits) {
		try {
			refundAsync(key, limits, permits).join();
		}
		catch (java.util.concurrent.CompletionException ex) {
			throw (RuntimeException) unwrap(ex);
		}
	}

	/**
	 * Gives back permits as {@link #refund} does, without holding the caller's thread while Redis answers.
	 * @return completes when the permits are back, exceptionally with {@link RateLimiterUnavailableException}
	 * when Redis cannot answer
	 */
	@Override
	public CompletableFuture<Void> refundAsync(String key, List<RateLimit> limits, long permits) {
		Assert.notNull(key, "key must not be null");
		PreparedLimits.Prepared prepared = this.prepared.of(limits, permits);
		List<String> args = RedisScripts.args(this.clock, permits, prepared.args(), 1);
		args.add(this.algorithm.id());
		CompletableFuture<List<?>> reply;
		try {
			reply = this.runner.runAsync(RedisScripts.REFUND, this.keys.forLimits(key, limits), args);
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		return CallerLoops.backOnCaller(reply.handle((answer, failure) -> {
			if (failure != null) {
				Throwable cause = unwrap(failure);
				throw new RateLimiterUnavailableException("Redis could not take the permits back: " + cause, cause);
			}
			// a refusal remembered until now would refuse what the budget allows again
			forgetDenials(key);
			return null;
		}));
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
		Assert.notNull(key, "key must not be null");
		this.prepared.of(limits, 1);
		forgetDenials(key);
		try {
			return RedisScripts.number(this.runner.run(RedisScripts.RESET, this.keys.forLimits(key, limits), List.of()), 0);
		}
		catch (RuntimeException ex) {
			throw new RateLimiterUnavailableException("Redis could not reset the key: " + ex, ex);
		}
	}

	@Override
	public Algorithm algorithm() {
		return this.algorithm;
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
			redis.add(new RedisRateLimiters.Call(limiter, call.key(), call.limits(), call.permits()));
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
		return this.keys.single(id);
	}

	private List<RateLimitDecision> read(String key, List<RateLimit> limits, PreparedLimits.Prepared prepared,
			long permits) {
		List<?> reply = this.runner.run(script(), scriptKeys(key, limits), scriptArgs(prepared, permits, false));
		return RedisScripts.decisions(reply, limits);
	}

	private RedisScript<List> script() {
		return (this.block != null) ? this.scripts.blockingScript() : this.scripts.script();
	}

	/** The keys a script call takes: a blocking limiter's start with the key's block. */
	private List<String> scriptKeys(String key, List<RateLimit> limits) {
		List<String> limitKeys = this.keys.forLimits(key, limits);
		if (this.block == null) {
			return limitKeys;
		}
		List<String> keys = new ArrayList<>(limitKeys.size() + 1);
		keys.add(this.keys.block(key));
		keys.addAll(limitKeys);
		return keys;
	}

	/**
	 * The arguments a script call takes: a blocking limiter's end with its policy's, and whether a refusal
	 * starts a block ({@code blocks}, for decisions and checks; not for reading the state).
	 */
	private List<String> scriptArgs(PreparedLimits.Prepared prepared, long permits, boolean blocks) {
		if (this.block == null) {
			return RedisScripts.args(this.clock, permits, prepared.args(), 0);
		}
		List<String> args = RedisScripts.args(this.clock, permits, prepared.args(), this.blockArgs.size() + 1);
		args.addAll(this.blockArgs);
		args.add(blocks ? "1" : "0");
		return args;
	}

	/**
	 * Returns how long a key stays blocked, or blocks it by hand for {@code length}, on a blocking limiter.
	 */
	Duration blockState(String key, @Nullable Duration length) {
		Assert.notNull(key, "key must not be null");
		BlockPolicy policy = this.block;
		Assert.state(policy != null, "a limiter that blocks no key has no block state");
		List<String> args = List.of(RedisScripts.now(this.clock),
				(length != null) ? Long.toString(micros(length)) : "",
				Long.toString(micros(policy.blockFor())));
		try {
			List<?> reply = this.runner.run(RedisScripts.BLOCK_STATE, List.of(this.keys.block(key)), args);
			if (length != null) {
				forgetDenials(key);
			}
			return Duration.ofNanos(RedisScripts.number(reply, 0) * 1000);
		}
		catch (RuntimeException ex) {
			throw new RateLimiterUnavailableException("Redis could not " + ((length != null) ? "block" : "read the block of")
					+ " the key: " + ex, ex);
		}
	}

	/**
	 * Lifts a key's block on a blocking limiter.
	 */
	boolean unblock(String key) {
		Assert.notNull(key, "key must not be null");
		forgetDenials(key);
		try {
			return RedisScripts.number(this.runner.run(RedisScripts.RESET, List.of(this.keys.block(key)), List.of()), 0) > 0;
		}
		catch (RuntimeException ex) {
			throw new RateLimiterUnavailableException("Redis could not unblock the key: " + ex, ex);
		}
	}

	/** µs of a duration no longer than {@link RateLimit#MAX_WINDOW}, as the scripts take it. */
	private static long micros(Duration duration) {
		return duration.toNanos() / 1000;
	}

	private void forgetDenials(String key) {
		LocalDenialCache denials = this.guard.denialCache;
		if (denials != null) {
			denials.forget(this.keys.denialPrefix(key));
		}
	}

	static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

	/**
	 * Returns the result of a completed future, throwing its failure as it was thrown.
	 */
	static <T> T join(CompletableFuture<T> future) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			Throwable cause = unwrap(ex);
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
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

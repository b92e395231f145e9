package dev.ratelimit.redis;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.LocalDenialCache;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * The Redis rate limiter of every algorithm: checks the arguments, builds the keys, and runs the
 * algorithm's Lua script in one {@code EVALSHA} round trip. Time comes from the Redis server unless a
 * {@link Clock} is given. Optionally a circuit breaker keeps calls away from a failing Redis, a local
 * denial cache refuses keys Redis refused without calling it again, and a fallback decides while
 * Redis cannot; without a fallback such a call fails with {@link RateLimiterUnavailableException}.
 * Build one with {@link #builder(Algorithm, RedisScriptRunner)}.
 */
public final class RedisRateLimiter implements RateLimiter {

	/** The key prefix of the seed's keys, {@code rate:<algorithm>:<id>}. */
	public static final String DEFAULT_KEY_PREFIX = "rate";

	private final Algorithm algorithm;

	private final RedisScripts scripts;

	// read by RedisRateLimiters, which decides calls of several limiters together
	final RedisKeys keys;

	final RedisScriptRunner runner;

	final @Nullable Clock clock;

	final @Nullable CircuitBreaker circuitBreaker;

	private final @Nullable RateLimiter fallback;

	final @Nullable LocalDenialCache denialCache;

	private RedisRateLimiter(Builder builder) {
		this.algorithm = builder.algorithm;
		this.scripts = RedisScripts.of(builder.algorithm);
		this.keys = new RedisKeys(builder.keyPrefix, this.scripts.keySegment());
		this.runner = builder.runner;
		this.clock = builder.clock;
		this.circuitBreaker = builder.circuitBreaker;
		this.fallback = builder.fallback;
		this.denialCache = builder.denialCache;
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
		return join(decide(key, limits, permits, false));
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
		return decide(key, limits, permits, true);
	}

	/**
	 * Decides a call: from the denial cache when it remembers a refusal, else in Redis through the
	 * circuit breaker, else from the fallback. Synchronously (every stage completed before it returns)
	 * or not; one path for both, so that they cannot drift apart.
	 */
	private CompletableFuture<List<RateLimitDecision>> decide(String key, List<RateLimit> limits, long permits,
			boolean async) {
		Assert.notNull(key, "key must not be null");
		this.algorithm.check(limits, permits);
		LocalDenialCache denials = this.denialCache;
		if (denials == null) {
			return fromRedis(key, limits, permits, async);
		}
		String denialKey = this.keys.denial(key, limits);
		if (!async) {
			List<RateLimitDecision> cached = denials.lookup(denialKey, permits);
			return (cached != null) ? CompletableFuture.completedFuture(cached)
					: fromRedis(key, limits, permits, denials, denialKey, false);
		}
		return denials.lookupAsync(denialKey, permits)
			.thenCompose((cached) -> (cached != null) ? CompletableFuture.completedFuture(cached)
					: fromRedis(key, limits, permits, denials, denialKey, true));
	}

	private CompletableFuture<List<RateLimitDecision>> fromRedis(String key, List<RateLimit> limits, long permits,
			LocalDenialCache denials, String denialKey, boolean async) {
		long sentAt = denials.now();
		// a rejection of Redis's is remembered (a fallback's is not Redis's); then, whatever the outcome, the
		// callers waiting for this call are released, to read what was remembered or to ask Redis themselves
		return fromRedis(key, limits, permits, async, (decisions) -> {
			if (decisions.stream().anyMatch((decision) -> !decision.allowed())) {
				denials.remember(denialKey, permits, sentAt, decisions);
			}
		}).whenComplete((decisions, failure) -> denials.settle(denialKey));
	}

	private CompletableFuture<List<RateLimitDecision>> fromRedis(String key, List<RateLimit> limits, long permits,
			boolean async) {
		return fromRedis(key, limits, permits, async, null);
	}

	/**
	 * Asks Redis through the circuit breaker, or the fallback when Redis cannot answer.
	 * @param answered told of Redis's answers, not of the fallback's
	 */
	private CompletableFuture<List<RateLimitDecision>> fromRedis(String key, List<RateLimit> limits, long permits,
			boolean async, @Nullable Consumer<List<RateLimitDecision>> answered) {
		CircuitBreaker breaker = this.circuitBreaker;
		if (breaker != null && !breaker.tryAcquirePermission()) {
			return unavailable(key, limits, permits, null);
		}
		List<String> redisKeys = this.keys.forLimits(key, limits);
		List<String> args = RedisScripts.args(this.clock, limits, permits);
		CompletableFuture<List<?>> reply;
		if (async) {
			try {
				reply = this.runner.runAsync(this.scripts.script(), redisKeys, args);
			}
			catch (RuntimeException ex) {
				reply = CompletableFuture.failedFuture(ex);
			}
		}
		else {
			try {
				reply = CompletableFuture.completedFuture(this.runner.run(this.scripts.script(), redisKeys, args));
			}
			catch (RuntimeException | Error ex) {
				reply = CompletableFuture.failedFuture(ex);
			}
		}
		return reply.handle((answer, failure) -> {
			// the breaker hears of every call it let through, errors too, or a probe would never report back
			if (failure != null) {
				Throwable cause = unwrap(failure);
				if (breaker != null) {
					breaker.onFailure(cause);
				}
				if (cause instanceof Error error) {
					throw error;
				}
				return unavailable(key, limits, permits, (RuntimeException) cause);
			}
			List<RateLimitDecision> decisions;
			try {
				decisions = RedisScripts.decisions(answer, limits);
			}
			catch (RuntimeException ex) {
				if (breaker != null) {
					breaker.onFailure(ex);
				}
				return unavailable(key, limits, permits, ex);
			}
			if (breaker != null) {
				breaker.onSuccess();
			}
			if (answered != null) {
				answered.accept(decisions);
			}
			return CompletableFuture.completedFuture(decisions);
		}).thenCompose(Function.identity());
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
		this.algorithm.check(limits, 1);
		try {
			// negative permits: the script tells what a call for one would be told, and writes nothing
			return read(key, limits, -1);
		}
		catch (RuntimeException ex) {
			throw new RateLimiterUnavailableException("Redis could not read the state: " + ex, ex);
		}
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
		this.algorithm.check(limits, 1);
		if (this.denialCache != null) {
			this.denialCache.forget(this.keys.denialPrefix(key));
		}
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
	 * Returns the Redis key that holds the state of {@code id} under a single limit, for operators
	 * looking for it: {@code <prefix>:<algorithm>:<id>}, the id as {@link RedisKeys#segment(String)}
	 * renders it. Under several limits each has {@code <prefix>:<algorithm>:{<id>}:<window>}.
	 * @param id the caller's key
	 * @return the Redis key
	 */
	public String redisKey(String id) {
		return this.keys.single(id);
	}

	private List<RateLimitDecision> read(String key, List<RateLimit> limits, long permits) {
		List<?> reply = this.runner.run(this.scripts.script(), this.keys.forLimits(key, limits),
				RedisScripts.args(this.clock, limits, permits));
		return RedisScripts.decisions(reply, limits);
	}

	private CompletableFuture<List<RateLimitDecision>> unavailable(String key, List<RateLimit> limits, long permits,
			@Nullable RuntimeException cause) {
		if (this.fallback == null) {
			return CompletableFuture.failedFuture(new RateLimiterUnavailableException((cause != null)
					? "Redis could not decide: " + cause : "Redis is not called while its circuit breaker is open",
					cause));
		}
		try {
			return CompletableFuture
				.completedFuture(this.fallback.tryAcquire(RedisKeys.fallback(this.algorithm, key), limits, permits));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
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

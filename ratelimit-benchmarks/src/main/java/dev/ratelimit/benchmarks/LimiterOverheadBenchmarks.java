package dev.ratelimit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.redis.RedisScriptRunner;

/**
 * The CPU our limiter spends per decision besides Redis and the client: a runner that answers at once
 * with an allowed reply stands in for Redis, so what is left is argument checks, key building, the
 * circuit breaker, the denial cache and reading the reply; through the blocking and the asynchronous API.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LimiterOverheadBenchmarks {

	/** {@code starter}: breaker and denial cache as the starter sets them up; {@code bare}: neither. */
	@Param({ "starter", "bare" })
	public String configuration;

	private FixedWindowRateLimiter limiter;

	private final String[] keys = Contenders.keys(10_000);

	/**
	 * Builds the limiter over a runner that needs no Redis.
	 */
	@Setup(Level.Trial)
	public void createLimiter() {
		List<Long> reply = List.of(1L, 999_999L, 0L, Duration.ofHours(1).toNanos() / 1000);
		RedisScriptRunner runner = (script, keys, args) -> reply;
		boolean starter = this.configuration.equals("starter");
		this.limiter = new FixedWindowRateLimiter(RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner)
			.keyPrefix("bench")
			.circuitBreaker(starter ? new CircuitBreaker("Redis", 5, Duration.ofSeconds(2)) : null)
			.denialCache(starter ? new LocalDenialCache(10_000) : null)
			.build());
	}

	/**
	 * Decides one request for a random key.
	 * @return the decision
	 */
	@Benchmark
	public RateLimitDecision decide() {
		return this.limiter.tryAcquire(this.keys[ThreadLocalRandom.current().nextInt(this.keys.length)],
				Contenders.ALLOWED);
	}

	/**
	 * Decides one request for a random key through the asynchronous API; the runner's future is complete
	 * at once, so what is measured is the limiter's own work on that path, futures included.
	 * @return the decision
	 */
	@Benchmark
	public RateLimitDecision decideAsync() {
		return this.limiter.tryAcquireAsync(this.keys[ThreadLocalRandom.current().nextInt(this.keys.length)],
				Contenders.ALLOWED).join();
	}

}

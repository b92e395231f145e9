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
import org.openjdk.jmh.annotations.TearDown;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitReservation;
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.RateLimiters;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.redis.RedisRateLimiter;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What the new kinds of limits cost next to a plain decision, against a real Redis, the limiter as the starter
 * builds it (fixed window, breaker and denial cache), 10,000 keys: a slot of work in flight taken and given back (two
 * round trips), a slot decided with a rate limit in one script call and given back, a reservation settled with a cost
 * less than its estimate (two round trips: the refund) and one settled at its estimate (no second call).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class NewKindsBenchmarks {

	/** What one operation is. */
	@Param({ "decision", "slot", "slot-with-limit", "reserve-settle", "reserve-settle-exact" })
	public String operation;

	private static final List<RateLimit> ALLOWED = List.of(Contenders.ALLOWED);

	private static final Duration LEASE = Duration.ofMinutes(1);

	private final String[] keys = Contenders.keys(10_000);

	private BenchmarkRedis redis;

	private LettuceConnectionFactory factory;

	private LettuceScriptRunner runner;

	private RedisRateLimiter limiter;

	/**
	 * Starts a Redis and the limiter.
	 */
	@Setup(Level.Trial)
	public void start() {
		this.redis = BenchmarkRedis.start();
		this.factory = Contenders.connectionFactory(this.redis);
		this.runner = new LettuceScriptRunner(this.factory, Duration.ofMillis(200), true);
		this.runner.start();
		this.limiter = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, this.runner)
			.keyPrefix("bench")
			.circuitBreaker(new CircuitBreaker("Redis", 5, Duration.ofSeconds(2)))
			.denialCache(new LocalDenialCache(10_000))
			.build();
		// the connection opens in the background, and each script is loaded at its first call: every operation once,
		// until each answers
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		String chosen = this.operation;
		for (String each : List.of("decision", "slot", "slot-with-limit", "reserve-settle")) {
			this.operation = each;
			while (true) {
				try {
					operate();
					break;
				}
				catch (RuntimeException ex) {
					if (System.nanoTime() - deadline > 0) {
						throw ex;
					}
				}
			}
		}
		this.operation = chosen;
	}

	/**
	 * Stops the limiter and the Redis.
	 */
	@TearDown(Level.Trial)
	public void stop() {
		this.runner.close();
		this.factory.destroy();
		this.redis.close();
	}

	/**
	 * One operation for a random key.
	 * @return what it decided
	 */
	@Benchmark
	public Object operate() {
		String key = this.keys[ThreadLocalRandom.current().nextInt(this.keys.length)];
		switch (this.operation) {
			case "decision" -> {
				return this.limiter.tryAcquire(key, Contenders.ALLOWED);
			}
			case "slot" -> {
				try (RateLimitSlot slot = this.limiter.tryAcquireSlot(key, 1_000_000, LEASE)) {
					return slot.decision();
				}
			}
			case "slot-with-limit" -> {
				List<RateLimiters.Call> calls = List.of(new RateLimiters.Call(this.limiter, key, ALLOWED, 1),
						RateLimiters.Call.slot(this.limiter, key, 1_000_000, LEASE));
				List<List<dev.ratelimit.RateLimitDecision>> answers = RateLimiters.tryAcquireTogether(calls);
				try (RateLimitSlot slot = calls.get(1).slot(answers.get(answers.size() - 1))) {
					return slot.decision();
				}
			}
			case "reserve-settle" -> {
				RateLimitReservation reservation = this.limiter.reserve(key, ALLOWED, 10, LEASE);
				reservation.settle(7);
				return reservation;
			}
			case "reserve-settle-exact" -> {
				RateLimitReservation reservation = this.limiter.reserve(key, ALLOWED, 10, LEASE);
				reservation.settle(10);
				return reservation;
			}
			default -> throw new IllegalArgumentException("Unknown operation " + this.operation);
		}
	}

}

package dev.ratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.RateLimit;
import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;
import dev.ratelimit.redis.RedisRateLimiter;

/**
 * Our limiters' asynchronous API, {@code tryAcquireAsync}, driven from one thread that keeps 1, 8 or
 * 64 decisions in flight: a slot is taken before each call and given back in the future's callback, on
 * Lettuce's I/O thread. The workload and the limiters are those of {@link RateLimiterBenchmarks}: the
 * allowed path over 10,000 pre-filled keys chosen at random, the starter's configuration, a fresh
 * redis-server per algorithm. It compares with the physical limit of the same script at as many
 * commands in flight, which has no client code at all. Only decisions Redis answered count: a call that
 * timed out, or that an open circuit breaker failed at once, is an error, counted apart. The O(1) algorithms also
 * run with batching, the starter's default, at 64 in flight ({@code fixed-window+batching}, say).
 */
final class AsyncScenario {

	private static final int KEYS = 10_000;

	/** Latencies kept per round; a round of more decisions samples its first ones. */
	private static final int LATENCY_CAPACITY = 1 << 21;

	private final Duration round;

	private final int rounds;

	AsyncScenario(Duration round, int rounds) {
		this.round = round;
		this.rounds = rounds;
	}

	/**
	 * Measures every algorithm at every concurrency, one redis-server per algorithm.
	 * @return one row per algorithm and concurrency
	 * @throws InterruptedException when interrupted
	 */
	List<Map<String, Object>> run() throws InterruptedException {
		List<Map<String, Object>> results = new ArrayList<>();
		String[] keys = Contenders.keys(KEYS);
		for (String algorithm : Contenders.OURS) {
			try (BenchmarkRedis redis = BenchmarkRedis.start();
					OurContender contender = (OurContender) Contenders.create(algorithm, redis, keys, Contenders.ALLOWED)) {
				contender.prefill();
				for (int depth : Measurements.CONCURRENCY) {
					results.add(measure(algorithm, contender, redis, keys, depth));
				}
			}
		}
		// with batching, the starter's default: at 64 in flight only, where calls find others in flight
		for (String algorithm : Labels.O1) {
			String system = algorithm + Contenders.BATCHING;
			try (BenchmarkRedis redis = BenchmarkRedis.start();
					OurContender contender = (OurContender) Contenders.create(system, redis, keys, Contenders.ALLOWED)) {
				contender.prefill();
				results.add(measure(system, contender, redis, keys, 64));
			}
		}
		return results;
	}

	private Map<String, Object> measure(String algorithm, OurContender contender, BenchmarkRedis redis, String[] keys,
			int depth) throws InterruptedException {
		RedisRateLimiter limiter = contender.limiter();
		RateLimit limit = Contenders.within(algorithm.replace(Contenders.BATCHING, ""), Contenders.ALLOWED);
		long[] latencies = new long[LATENCY_CAPACITY];
		inFlight(limiter, limit, keys, depth, this.round.toNanos(), latencies);
		List<Double> perSecond = new ArrayList<>();
		long[] totals = new long[3];
		List<long[]> sampled = new ArrayList<>();
		ServerCounters before = redis.counters();
		long cpuBefore = RateLimiterBenchmarks.processCpuNanos();
		for (int r = 0; r < this.rounds; r++) {
			long start = System.nanoTime();
			long[] counts = inFlight(limiter, limit, keys, depth, this.round.toNanos(), latencies);
			perSecond.add((counts[0] - counts[2]) / ((System.nanoTime() - start) / 1e9));
			for (int i = 0; i < totals.length; i++) {
				totals[i] += counts[i];
			}
			// failed calls left -1
			sampled.add(Arrays.stream(latencies, 0, (int) Math.min(counts[0], LATENCY_CAPACITY))
				.filter((micros) -> micros >= 0)
				.toArray());
		}
		long cpuAfter = RateLimiterBenchmarks.processCpuNanos();
		ServerCounters after = redis.counters();
		double seconds = (after.nanoTime() - before.nanoTime()) / 1e9;
		long decisions = totals[0] - totals[2];
		long[] all = HttpScenario.concat(sampled);
		Map<String, Object> row = Measurements.row("system", algorithm, "depth", depth, "roundSeconds",
				this.round.toMillis() / 1000.0, "perSecond", perSecond,
				"decisions", decisions, "rejections", totals[1], "errors", totals[2], "p50",
				HttpScenario.percentile(all, 0.50), "p99", HttpScenario.percentile(all, 0.99), "p999",
				HttpScenario.percentile(all, 0.999), "redisCpuShare", (after.cpuSeconds() - before.cpuSeconds()) / seconds,
				"jvmCpuShare", (cpuAfter - cpuBefore) / 1e9 / seconds, "redisUsecPerDecision",
				(double) (after.usec() - before.usec()) / Math.max(decisions, 1), "redisCommands",
				after.callsSince(before));
		Measurements.log("async " + algorithm + " in flight " + depth + ": " + perSecond + ", errors "
				+ totals[2] + ", rejections " + totals[1]);
		return row;
	}

	/**
	 * Keeps {@code depth} decisions in flight from the calling thread for a while and returns
	 * {calls, rejections, errors}; the latency of the n-th call, in microseconds from the call to its
	 * callback, or -1 when it failed, goes into {@code latencies[n]} while there is room.
	 */
	private static long[] inFlight(RedisRateLimiter limiter, RateLimit limit, String[] keys, int depth, long nanos,
			long[] latencies)
			throws InterruptedException {
		Semaphore slots = new Semaphore(depth);
		LongAdder rejections = new LongAdder();
		LongAdder errors = new LongAdder();
		SplittableRandom random = new SplittableRandom(depth);
		long sent = 0;
		long deadline = System.nanoTime() + nanos;
		while (System.nanoTime() < deadline) {
			slots.acquire();
			int index = (sent < latencies.length) ? (int) sent : -1;
			sent++;
			long start = System.nanoTime();
			limiter.tryAcquireAsync(keys[random.nextInt(keys.length)], limit).whenComplete((decision, failure) -> {
				if (index >= 0) {
					latencies[index] = (failure != null) ? -1 : (System.nanoTime() - start) / 1000;
				}
				if (failure != null) {
					// the starter fails open: counted, so that a table can never hide a timeout
					errors.increment();
				}
				else if (!decision.allowed()) {
					rejections.increment();
				}
				slots.release();
			});
		}
		// every callback has run once all the slots are back, and its writes are visible
		slots.acquire(depth);
		return new long[] { sent, rejections.sum(), errors.sum() };
	}

}

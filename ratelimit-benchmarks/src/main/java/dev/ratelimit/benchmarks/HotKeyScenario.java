package dev.ratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.RateLimit;
import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;

/**
 * The hot key: our fixed window with one key far over its limit, hammered by 8 and 64 threads, with and without
 * the local denial cache; a limit per minute within one retry period, and a limit per second over several.
 */
final class HotKeyScenario {

	private HotKeyScenario() {
	}

	/** Returns the runs of the hot key, as {@code measurements.json} holds them under {@code hotKey}. */
	static Map<String, Object> run(BenchmarkRedis redis) throws InterruptedException {
		List<Map<String, Object>> runs = new ArrayList<>();
		RateLimit perMinute = RateLimit.of(10, Duration.ofMinutes(1));
		for (boolean cached : new boolean[] { false, true }) {
			for (int threads : new int[] { 8, 64 }) {
				runs.add(hotKeyRun(redis, perMinute, cached, threads, Duration.ofSeconds(3), 3));
			}
		}
		// a short window, so that a run spans several retry periods
		RateLimit perSecond = RateLimit.of(10, Duration.ofSeconds(1));
		List<Map<String, Object>> periods = new ArrayList<>();
		for (int threads : new int[] { 8, 64 }) {
			periods.add(hotKeyRun(redis, perSecond, true, threads, Duration.ofSeconds(5), 1));
		}
		return Measurements.row("perMinute", runs, "perSecond", periods);
	}

	private static Map<String, Object> hotKeyRun(BenchmarkRedis redis, RateLimit limit, boolean cached, int threads,
			Duration length, int roundCount) throws InterruptedException {
		String[] keys = new String[roundCount + 1];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = "hot-" + limit.windowLabel() + "-" + cached + "-" + threads + "-" + i;
		}
		LongAdder calls = new LongAdder();
		LocalDenialCache cache = cached ? new LocalDenialCache(10_000) : null;
		try (OurContender contender = Contenders.ours("fixed-window", redis, keys, limit, cache, calls, false)) {
			contender.warmUp();
			hammer(contender, 0, threads, Duration.ofSeconds(1).toNanos());
			List<Double> rejectionsPerSecond = new ArrayList<>();
			List<Long> redisCalls = new ArrayList<>();
			List<Long> evalshaCalls = new ArrayList<>();
			List<Long> allowed = new ArrayList<>();
			List<Long> rejectedCalls = new ArrayList<>();
			long errorsBefore = contender.errors();
			for (int r = 1; r <= roundCount; r++) {
				calls.reset();
				ServerCounters before = redis.counters();
				long start = System.nanoTime();
				long[] counts = hammer(contender, r, threads, length.toNanos());
				double seconds = (System.nanoTime() - start) / 1e9;
				ServerCounters after = redis.counters();
				rejectionsPerSecond.add(counts[1] / seconds);
				redisCalls.add(calls.sum());
				evalshaCalls.add(after.callsSince(before, "evalsha") + after.callsSince(before, "eval"));
				allowed.add(counts[0] - counts[1]);
				rejectedCalls.add(calls.sum() - (counts[0] - counts[1]));
			}
			Map<String, Object> run = Measurements.row("limit", limit.limit() + "/" + limit.windowLabel(), "cache", cached,
					"threads", threads, "roundSeconds", length.toSeconds(), "rejectionsPerSecond", rejectionsPerSecond,
					"redisCalls", redisCalls, "evalshaCalls", evalshaCalls, "allowed", allowed, "rejectedCallsToRedis",
					rejectedCalls, "errors", contender.errors() - errorsBefore);
			Measurements.log("hot key " + run);
			return run;
		}
	}

	/** Returns {decisions, rejections} of {@code threads} threads hammering one key for a while. */
	private static long[] hammer(Contender contender, int keyIndex, int threads, long nanos)
			throws InterruptedException {
		LongAdder decisions = new LongAdder();
		LongAdder rejections = new LongAdder();
		long deadline = System.nanoTime() + nanos;
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				long decided = 0;
				long rejected = 0;
				while (System.nanoTime() < deadline) {
					if (!contender.tryAcquire(keyIndex)) {
						rejected++;
					}
					decided++;
				}
				decisions.add(decided);
				rejections.add(rejected);
			}, "hot-key-" + t);
			workers.add(worker);
			worker.start();
		}
		for (Thread worker : workers) {
			worker.join();
		}
		return new long[] { decisions.sum(), rejections.sum() };
	}

}

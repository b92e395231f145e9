package dev.ratelimit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.redis.RedisScriptRunner;

/**
 * One of our limiters under test; pre-fills its keys with its own script, pipelined over a raw
 * connection, so that a million keys take seconds.
 */
public final class OurContender implements Contender {

	private static final int BATCH = 1000;

	private final String algorithm;

	private final RedisRateLimiter limiter;

	private final BenchmarkRedis redis;

	private final String[] keys;

	private final RateLimit limit;

	private final Runnable close;

	private final LongAdder errors = new LongAdder();

	OurContender(String algorithm, RedisRateLimiter limiter, BenchmarkRedis redis, String[] keys,
			RateLimit limit, Runnable close) {
		this.algorithm = algorithm;
		this.limiter = limiter;
		this.redis = redis;
		this.keys = keys;
		this.limit = limit;
		this.close = close;
	}

	/**
	 * Returns the limiter.
	 * @return the limiter
	 */
	public RedisRateLimiter limiter() {
		return this.limiter;
	}

	@Override
	public boolean tryAcquire(int keyIndex) {
		try {
			return this.limiter.tryAcquire(this.keys[keyIndex], this.limit).allowed();
		}
		catch (RateLimiterUnavailableException ex) {
			// the starter's fail-open: counted, so that a table can never hide a timeout
			this.errors.increment();
			return true;
		}
	}

	/**
	 * Returns how many decisions failed because Redis did not answer in time or the breaker was open.
	 * @return the count
	 */
	public long errors() {
		return this.errors.sum();
	}

	/**
	 * Calls the limiter until Redis answers, so that connecting and class loading happen before any
	 * measurement: a cold JVM can take longer than the runner's timeout for the first call.
	 */
	public void warmUp() {
		long deadline = System.nanoTime() + 30_000_000_000L;
		while (true) {
			try {
				this.limiter.tryAcquire("warm-up", this.limit);
				return;
			}
			catch (RateLimiterUnavailableException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				try {
					Thread.sleep(100);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw ex;
				}
			}
		}
	}

	@Override
	public void prefill() {
		warmUp();
		SentScript sent = SentScript.capture(this.algorithm, this.limit);
		String sha = sent.load(this.redis);
		try (RespConnection connection = RespConnection.open(this.redis.port())) {
			for (int first = 0; first < this.keys.length; first += BATCH) {
				int end = Math.min(first + BATCH, this.keys.length);
				for (int i = first; i < end; i++) {
					connection.write(sent.evalsha(sha, this.limiter.redisKey(this.keys[i])));
				}
				connection.flush();
				for (int i = first; i < end; i++) {
					connection.readOk();
				}
			}
		}
	}

	/**
	 * Creates one of our limiters.
	 * @param algorithm the algorithm, one of {@link Contenders#OURS}
	 * @param runner runs its scripts
	 * @return the limiter's builder, to finish with the parts a measurement needs
	 */
	static RedisRateLimiter.Builder limiter(String algorithm, RedisScriptRunner runner) {
		for (Algorithm candidate : Algorithm.values()) {
			if (candidate.id().equals(algorithm)) {
				return RedisRateLimiter.builder(candidate, runner);
			}
		}
		throw new IllegalArgumentException("Unknown algorithm " + algorithm);
	}

	/**
	 * The script and arguments one of our limiters sends for a single-limit decision, captured from the
	 * limiter itself so that the physical limit and pre-filling always run exactly what it runs.
	 *
	 * @param script the whole Lua source
	 * @param args the arguments, the same for every key
	 */
	record SentScript(String script, List<String> args) {

		static SentScript capture(String algorithm, RateLimit allowed) {
			RateLimit limit = Contenders.within(algorithm, allowed);
			AtomicReference<SentScript> sent = new AtomicReference<>();
			RedisScriptRunner capturing = (script, keys, args) -> {
				sent.set(new SentScript(script.getScriptAsString(), List.copyOf(args)));
				return List.of(1L, limit.limit() - 1, 0L, limit.window().toNanos() / 1000);
			};
			limiter(algorithm, capturing).keyPrefix("capture")
				.build()
				.tryAcquire("capture", limit);
			return sent.get();
		}

		/** Loads the script into the server and returns its SHA-1. */
		String load(BenchmarkRedis redis) {
			return new String((byte[]) redis.admin().call("SCRIPT", "LOAD", this.script), StandardCharsets.US_ASCII);
		}

		/** Encodes {@code EVALSHA} of the script for one key. */
		byte[] evalsha(String sha, String key) {
			List<String> parts = new ArrayList<>(List.of("EVALSHA", sha, "1", key));
			parts.addAll(this.args);
			return RespConnection.encode(parts.toArray(new String[0]));
		}

	}

	@Override
	public void close() {
		this.close.run();
	}

}

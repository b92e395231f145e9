package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.redis.AbstractRedisRateLimiter;

/**
 * One of our limiters under test; pre-fills its keys with its own script, pipelined over a raw
 * connection, so that a million keys take seconds.
 */
public final class OurContender implements Contender {

	private static final int BATCH = 1000;

	private final String algorithm;

	private final AbstractRedisRateLimiter limiter;

	private final BenchmarkRedis redis;

	private final String[] keys;

	private final RateLimit limit;

	private final Runnable close;

	private final LongAdder errors = new LongAdder();

	OurContender(String algorithm, AbstractRedisRateLimiter limiter, BenchmarkRedis redis, String[] keys,
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
	public AbstractRedisRateLimiter limiter() {
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
		String sha = loadScript(this.redis, this.algorithm);
		String limitArg = Long.toString(this.limit.limit());
		String windowArg = Long.toString(this.limit.window().toNanos() / 1000);
		String burstArg = Long.toString(this.limit.burst());
		try (RespConnection connection = RespConnection.open(this.redis.port())) {
			for (int first = 0; first < this.keys.length; first += BATCH) {
				int end = Math.min(first + BATCH, this.keys.length);
				for (int i = first; i < end; i++) {
					connection.write(RespConnection.encode("EVALSHA", sha, "1", this.limiter.redisKey(this.keys[i]), "",
							"1", limitArg, windowArg, burstArg));
				}
				connection.flush();
				for (int i = first; i < end; i++) {
					connection.readOk();
				}
			}
		}
	}

	/**
	 * Loads one of our scripts into the server and returns its SHA-1.
	 * @param redis the server
	 * @param algorithm the script's name, such as {@code fixed-window}
	 * @return the SHA-1
	 */
	public static String loadScript(BenchmarkRedis redis, String algorithm) {
		return new String((byte[]) redis.admin().call("SCRIPT", "LOAD", scriptText(algorithm)), StandardCharsets.US_ASCII);
	}

	/**
	 * Returns the text of one of our scripts.
	 * @param algorithm the script's name, such as {@code fixed-window}
	 * @return the Lua source
	 */
	public static String scriptText(String algorithm) {
		String location = "META-INF/ratelimit/scripts/" + algorithm + ".lua";
		try (InputStream in = OurContender.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException(location + " is not on the class path");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		this.close.run();
	}

}

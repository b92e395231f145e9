package dev.ratelimit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

import dev.ratelimit.benchmarks.BenchmarkRedis.ServerCounters;

/**
 * The physical limit of the server: exactly the script and arguments our limiter sends, pipelined over one raw
 * socket with 1, 8 or 64 commands in flight; and, for comparison, the fixed-window script through Lettuce's
 * asynchronous API with as many in flight.
 */
final class PhysicalLimit {

	private static final int KEYS = 10_000;

	private static final byte[] PING = RespConnection.encode("PING");

	private final Duration round;

	private final int rounds;

	PhysicalLimit(Duration round, int rounds) {
		this.round = round;
		this.rounds = rounds;
	}

	/** Returns the raw pipeline's rates per script and depth, as {@code measurements.json} holds them under {@code physicalLimit}. */
	List<Map<String, Object>> rawPipeline(BenchmarkRedis redis) throws InterruptedException {
		List<Map<String, Object>> results = new ArrayList<>();
		for (String script : Measurements.PHYSICAL_SCRIPTS) {
			OurContender.SentScript sent = OurContender.SentScript.capture(script, Contenders.ALLOWED);
			String sha = sent.load(redis);
			byte[][] commands = new byte[KEYS][];
			for (int i = 0; i < KEYS; i++) {
				commands[i] = sent.evalsha(sha, "physical:" + script + ":user-" + i);
			}
			for (int depth : Measurements.CONCURRENCY) {
				try (RespConnection connection = RespConnection.open(redis.port())) {
					pipeline(connection, commands, depth, this.round.toNanos());
					List<Double> perSecond = new ArrayList<>();
					ServerCounters before = redis.counters();
					for (int r = 0; r < this.rounds; r++) {
						long start = System.nanoTime();
						long count = pipeline(connection, commands, depth, this.round.toNanos());
						perSecond.add(count / ((System.nanoTime() - start) / 1e9));
					}
					ServerCounters after = redis.counters();
					results.add(Measurements.row("script", script, "depth", depth, "perSecond", perSecond, "redisCpuShare",
							(after.cpuSeconds() - before.cpuSeconds()) / ((after.nanoTime() - before.nanoTime()) / 1e9),
							"redisUsecPerCall",
							(double) (after.usec() - before.usec()) / after.callsSince(before, "evalsha")));
					Measurements.log(script + " depth " + depth + ": " + perSecond);
				}
			}
		}
		return results;
	}

	/**
	 * Keeps {@code depth} commands in flight on one connection for a while, as a pipelining client
	 * does: a writer sends whenever a slot is free and flushes when none is, a reader takes the replies
	 * and frees the slots. Returns the replies received.
	 */
	private static long pipeline(RespConnection connection, byte[][] commands, int depth, long nanos)
			throws InterruptedException {
		Semaphore slots = new Semaphore(depth);
		AtomicLong received = new AtomicLong();
		AtomicReference<RuntimeException> failure = new AtomicReference<>();
		Thread reader = new Thread(() -> {
			try {
				// a PING after the last command marks the end: its reply is the only status reply
				while (!"PONG".equals(connection.readOk())) {
					received.incrementAndGet();
					slots.release();
				}
			}
			catch (RuntimeException ex) {
				failure.set(ex);
				slots.release(depth);
			}
		}, "physical-limit-reader");
		reader.start();
		SplittableRandom random = new SplittableRandom(depth);
		long deadline = System.nanoTime() + nanos;
		while (System.nanoTime() < deadline && failure.get() == null) {
			if (!slots.tryAcquire()) {
				connection.flush();
				slots.acquire();
			}
			connection.write(commands[random.nextInt(commands.length)]);
		}
		connection.write(PING);
		connection.flush();
		reader.join();
		if (failure.get() != null) {
			throw failure.get();
		}
		return received.get();
	}

	/** Returns Lettuce's asynchronous rates per depth, as {@code measurements.json} holds them under {@code lettuceAsync}. */
	List<Map<String, Object>> lettuceAsync(BenchmarkRedis redis) throws InterruptedException {
		List<Map<String, Object>> results = new ArrayList<>();
		RedisClient client = RedisClient.create(RedisURI.create(redis.url()));
		try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
			RedisAsyncCommands<byte[], byte[]> commands = connection.async();
			for (String script : List.of("fixed-window")) {
				OurContender.SentScript sent = OurContender.SentScript.capture(script, Contenders.ALLOWED);
				String sha = sent.load(redis);
				byte[][] keys = new byte[KEYS][];
				for (int i = 0; i < KEYS; i++) {
					keys[i] = ("lettuce:" + script + ":user-" + i).getBytes(StandardCharsets.UTF_8);
				}
				byte[][] args = sent.args().stream().map((arg) -> arg.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
				for (int depth : Measurements.CONCURRENCY) {
					inFlight(commands, sha, keys, args, depth, this.round.toNanos());
					List<Double> perSecond = new ArrayList<>();
					for (int r = 0; r < this.rounds; r++) {
						long start = System.nanoTime();
						long count = inFlight(commands, sha, keys, args, depth, this.round.toNanos());
						perSecond.add(count / ((System.nanoTime() - start) / 1e9));
					}
					results.add(Measurements.row("script", script, "depth", depth, "perSecond", perSecond));
					Measurements.log("lettuce " + script + " depth " + depth + ": " + perSecond);
				}
			}
		}
		finally {
			client.shutdown();
		}
		return results;
	}

	private static long inFlight(RedisAsyncCommands<byte[], byte[]> commands, String sha, byte[][] keys, byte[][] args,
			int depth, long nanos) throws InterruptedException {
		Semaphore slots = new Semaphore(depth);
		AtomicLong done = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		SplittableRandom random = new SplittableRandom(depth);
		long deadline = System.nanoTime() + nanos;
		while (System.nanoTime() < deadline) {
			slots.acquire();
			commands.evalsha(sha, ScriptOutputType.MULTI, new byte[][] { keys[random.nextInt(keys.length)] }, args)
				.whenComplete((reply, error) -> {
					if (error != null) {
						failed.incrementAndGet();
					}
					done.incrementAndGet();
					slots.release();
				});
		}
		slots.acquire(depth);
		if (failed.get() > 0) {
			throw new IllegalStateException(failed.get() + " EVALSHA calls failed");
		}
		return done.get();
	}

}

package dev.ratelimit.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The yardstick of the HTTP cost scenario: what one plain Lettuce asynchronous {@code EVALSHA} of the fixed
 * window's script (the call a rule makes) costs its client in CPU, in a JVM of its own pinned as the applications
 * are, with as many calls in flight as the load has connections. Reads commands from standard input:
 * {@code run <milliseconds>} keeps the calls going for that long and prints
 * {@code <calls> <cpu nanoseconds> <failed calls>} (a chain that fails stops);
 * between commands it is idle. Arguments: {@code <redis url> <calls in flight>}.
 */
public final class LettuceClientCost {

	private LettuceClientCost() {
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(RedisURI.create(args[0]));
		int inFlight = Integer.parseInt(args[1]);
		OurContender.SentScript sent = OurContender.SentScript.capture("fixed-window", Contenders.ALLOWED);
		byte[][] scriptArgs = sent.args().stream().map((arg) -> arg.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
		try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
			RedisAsyncCommands<byte[], byte[]> commands = connection.async();
			byte[] sha = commands.scriptLoad(sent.script().getBytes(StandardCharsets.UTF_8)).get().getBytes(StandardCharsets.US_ASCII);
			String shaText = new String(sha, StandardCharsets.US_ASCII);
			byte[][][] keys = new byte[10_000][][];
			for (int i = 0; i < keys.length; i++) {
				keys[i] = new byte[][] { ("lettuce-cost:" + i).getBytes(StandardCharsets.UTF_8) };
			}
			var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
			System.out.println("ready");
			for (String line = in.readLine(); line != null; line = in.readLine()) {
				List<String> command = List.of(line.strip().split(" "));
				if (!command.get(0).equals("run")) {
					continue;
				}
				long millis = Long.parseLong(command.get(1));
				AtomicLong calls = new AtomicLong();
				AtomicLong failures = new AtomicLong();
				AtomicBoolean stop = new AtomicBoolean();
				AtomicLong outstanding = new AtomicLong(inFlight);
				Object done = new Object();
				long cpuBefore = os.getProcessCpuTime();
				for (int i = 0; i < inFlight; i++) {
					SplittableRandom random = new SplittableRandom(i);
					new Runnable() {
						@Override
						public void run() {
							commands.evalsha(shaText, ScriptOutputType.MULTI, keys[random.nextInt(keys.length)], scriptArgs)
								.whenComplete((reply, failure) -> {
									if (failure == null) {
										calls.incrementAndGet();
									}
									else if (failures.incrementAndGet() == 1) {
										failure.printStackTrace();
									}
									if (!stop.get() && failure == null) {
										run();
									}
									else if (outstanding.decrementAndGet() == 0) {
										synchronized (done) {
											done.notifyAll();
										}
									}
								});
						}
					}.run();
				}
				TimeUnit.MILLISECONDS.sleep(millis);
				stop.set(true);
				synchronized (done) {
					while (outstanding.get() > 0) {
						done.wait(100);
					}
				}
				long cpu = os.getProcessCpuTime() - cpuBefore;
				System.out.println(calls.get() + " " + cpu + " " + failures.get());
			}
		}
		finally {
			client.shutdown();
		}
	}

}

package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Runs scripts through Lettuce's asynchronous API and never waits longer than a timeout of its own,
 * whatever the client's command timeout and whether Redis is down, refusing connections or silently
 * not answering. The timeout measures Redis: time this JVM's own threads kept the connection's I/O
 * thread from a CPU after a command was sent is added to its deadline (up to ten timeouts, at least a
 * second, in all), so that a starved application makes late decisions, not failures. The connection
 * is opened in the background when the application context starts it
 * (a {@link SmartLifecycle}), or else on the first call: no caller ever waits for a connect beyond the
 * timeout. Standalone, Sentinel and Cluster connections alike. {@link #runAsync} holds no thread while
 * Redis answers: its future completes on Lettuce's I/O thread, or on a timer thread when Redis is late.
 *
 * @since 0.1.0
 */
public final class LettuceScriptRunner implements RedisScriptRunner, SmartLifecycle, AutoCloseable {

	private final boolean cluster;

	private final StallClock stallClock = new StallClock();

	private final ScriptConnection connection;

	private final ScriptCommands commands;

	private final Deadlines deadlines;

	/** How long a script may take; read by tests of the auto-configuration. */
	private final Duration timeout;

	/** With batching, the lanes calls wait in while commands are in flight. */
	private final BatchLane.@Nullable Lanes lanes;

	private volatile boolean running;

	/**
	 * Creates a runner that sends every call as a command of its own; it connects when started, or on
	 * its first call. Outside an application context, call {@link #start()} so that the first decisions
	 * need not wait for the connection.
	 * @param connectionFactory the application's Lettuce connection factory
	 * @param timeout how long a script may take, connecting included; positive
	 */
	public LettuceScriptRunner(LettuceConnectionFactory connectionFactory, Duration timeout) {
		this(connectionFactory, timeout, false);
	}

	/**
	 * Creates a runner; it connects when started, or on its first call. Outside an application context,
	 * call {@link #start()} so that the first decisions need not wait for the connection.
	 * <p>
	 * With {@code batching}, a call that finds two of this runner's commands waiting for Redis (on a
	 * Cluster: two for its hash slot) waits for one of them to be answered, and then goes out with every
	 * other call that waited (up to 128), in one {@code EVALSHA} of a script that decides each call on its
	 * own, as if it had been sent alone. A call that finds fewer in flight goes out at once, as without
	 * batching. A busy application pays far less client CPU, and Redis somewhat less, per decision; each
	 * call keeps its own keys, all-or-nothing, reply, errors and timeout, which counts from the call,
	 * waiting included.
	 * @param connectionFactory the application's Lettuce connection factory
	 * @param timeout how long a script may take, connecting and waiting for a batch included; positive
	 * @param batching whether calls made while a command is in flight travel together
	 */
	public LettuceScriptRunner(LettuceConnectionFactory connectionFactory, Duration timeout, boolean batching) {
		Assert.isTrue(timeout != null && !timeout.isNegative() && !timeout.isZero(), () -> "timeout must be positive, but was " + timeout);
		this.cluster = connectionFactory.isClusterAware();
		this.timeout = timeout;
		this.connection = new ScriptConnection(connectionFactory, this.stallClock);
		this.commands = new ScriptCommands(this.connection, this.stallClock);
		this.deadlines = new Deadlines(timeout, this.stallClock);
		this.lanes = batching ? new BatchLane.Lanes(this.cluster, this::send) : null;
	}

	/**
	 * Starts connecting in the background and waits for it no longer than the timeout, so that the first
	 * decisions find the connection open, and a Redis that is down delays the start by no more than that.
	 */
	@Override
	public void start() {
		this.running = true;
		try {
			this.connection.connect().get(this.deadlines.timeoutNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// decisions meet the failure mode until it connects; each call retries a failed connect
		}
	}

	/**
	 * Returns whether calls made while commands are in flight travel together.
	 * @return {@code true} when batching
	 */
	public boolean isBatching() {
		return this.lanes != null;
	}

	@Override
	public boolean takesKeysOfAnySlot() {
		return !this.cluster;
	}

	/**
	 * Returns the phase of the start: after the connection factory, before the web server takes requests.
	 * @return the phase
	 */
	@Override
	public int getPhase() {
		return SmartLifecycle.DEFAULT_PHASE - 4096;
	}

	/**
	 * Closes the connection.
	 */
	@Override
	public void stop() {
		this.running = false;
		close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Runs a script as {@link #runAsync} does, and waits for its answer: the same call, completed. */
	@Override
	public List<?> run(RedisScript<List> script, List<String> keys, List<String> args) {
		long deadline = System.nanoTime() + this.deadlines.timeoutNanos();
		long stalledAtSend = this.stallClock.stalled();
		PendingCall call = submit(script, keys, args);
		return this.deadlines.await(call, deadline, stalledAtSend);
	}

	@Override
	public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args) {
		long deadline = System.nanoTime() + this.deadlines.timeoutNanos();
		long stalledAtSend = this.stallClock.stalled();
		PendingCall call = submit(script, keys, args);
		this.deadlines.expire(call, deadline, stalledAtSend);
		return call.answer;
	}

	/** Sends a call as a command of its own, or through its lane when batching takes its script. */
	private PendingCall submit(RedisScript<List> script, List<String> keys, List<String> args) {
		byte[][] keyBytes = ScriptCommands.bytes(keys);
		byte[][] argBytes = ScriptCommands.bytes(args);
		BatchLane.Lanes batches = this.lanes;
		int index = (batches != null) ? RedisScripts.batchIndex(script) : 0;
		if (batches != null && index > 0) {
			BatchCall call = new BatchCall(index, script, keyBytes, argBytes);
			batches.of(call).offer(call);
			return call;
		}
		PendingCall.Solo call = new PendingCall.Solo();
		this.commands.send(script, keyBytes, argBytes, call, call::settle);
		return call;
	}

	/**
	 * Sends a flight: a call alone as its own script, several as one {@link RedisScripts#BATCH}. Its lane
	 * is released when the reply comes, before the calls are answered.
	 */
	private void send(BatchFlight flight) {
		ScriptCommands.Reply done = (reply, error) -> {
			flight.release();
			flight.settle(reply, error);
		};
		if (flight.calls.size() == 1) {
			BatchCall call = flight.calls.get(0);
			this.commands.send(call.script, call.keys, call.args, null, done);
		}
		else {
			this.commands.send(RedisScripts.BATCH, flight.keys(), flight.args(), null, done);
		}
	}

	/**
	 * Closes the connection this runner holds, when it holds one of its own.
	 */
	@Override
	public void close() {
		this.stallClock.stop();
		this.connection.close();
	}

}

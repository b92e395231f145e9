package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.lettuce.core.SocketOptions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimiterTimeoutException;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Runs scripts through Lettuce's asynchronous API and never waits longer than a timeout of its own,
 * whatever the client's command timeout and whether Redis is down, refusing connections or silently
 * not answering. The timeout measures Redis: time this JVM's own threads kept the connection's I/O
 * thread from a CPU after a command was sent is added to its deadline (up to ten timeouts, at least a
 * second, in all), so that a starved application makes late decisions, not failures; a call that times out
 * all the same says whose lateness it was ({@link dev.ratelimit.RateLimiterTimeoutException}). A reply that
 * comes after its call timed out goes to the caller's late-reply handler, which undoes what the script did.
 * The connection is opened, and the scripts loaded, when the application context starts it (a
 * {@link SmartLifecycle}, before the web server), or else on the first call: no caller ever waits for a
 * connect beyond the timeout. Standalone, Sentinel and Cluster connections alike. {@link #runAsync} holds no thread while
 * Redis answers: its future completes on Lettuce's I/O thread, or on a timer thread when Redis is late.
 *
 * @since 0.1.0
 */
public final class LettuceScriptRunner implements RedisScriptRunner, SmartLifecycle, AutoCloseable {

	private static final Log logger = LogFactory.getLog(LettuceScriptRunner.class);

	/** Whether a blocking call on the connection's event loop has been logged. */
	private volatile boolean warnedBlockedOnLoop;

	private final boolean cluster;

	private final StallClock stallClock;

	private final ScriptConnection connection;

	private final ScriptCommands commands;

	private final Deadlines deadlines;

	/** How long a script may take; read by tests of the auto-configuration. */
	private final Duration timeout;

	/** How long {@link #start()} waits for the connection and the scripts. */
	private final long startupNanos;

	/** With batching, the lanes calls wait in while commands are in flight. */
	private final BatchLane.@Nullable Lanes lanes;

	private volatile boolean running;

	private volatile boolean readyAtStart;

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
		this(connectionFactory, timeout, batching, new StallClock());
	}

	/** A runner whose stall clock a test tells. */
	LettuceScriptRunner(LettuceConnectionFactory connectionFactory, Duration timeout, boolean batching,
			StallClock stallClock) {
		Assert.isTrue(timeout != null && !timeout.isNegative() && !timeout.isZero(), () -> "timeout must be positive, but was " + timeout);
		this.stallClock = stallClock;
		this.cluster = connectionFactory.isClusterAware();
		this.timeout = timeout;
		this.connection = new ScriptConnection(connectionFactory, this.stallClock);
		this.commands = new ScriptCommands(this.connection, this.stallClock);
		this.deadlines = new Deadlines(timeout, this.stallClock);
		this.startupNanos = connectTimeout(connectionFactory).plus(timeout).toNanos();
		this.lanes = batching ? new BatchLane.Lanes(this.cluster, this::send) : null;
	}

	/**
	 * Opens the connection (TLS handshake, authentication, Sentinel discovery) and loads the scripts into the
	 * server while the application starts, so that no decision waits for them: waits up to the client's connect
	 * timeout ({@code spring.data.redis.connect-timeout}, Lettuce's 10 s by default) plus this runner's timeout. A
	 * Redis that is down or too slow delays the start by no more than that; decisions then meet the failure
	 * mode until a call connects.
	 */
	@Override
	public void start() {
		this.running = true;
		try {
			this.connection.connect()
				.thenCompose(ScriptConnection.Connected::ready)
				.get(this.startupNanos, TimeUnit.NANOSECONDS);
			this.readyAtStart = true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// decisions meet the failure mode until it connects; each call retries a failed connect
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			logger.info("Redis was not ready for rate-limit decisions within "
					+ TimeUnit.NANOSECONDS.toMillis(this.startupNanos) + "ms of the start ("
					+ ((ex instanceof TimeoutException) ? "still connecting" : cause)
					+ "); decisions meet the failure mode until it is");
		}
	}

	/**
	 * Returns whether Redis was connected and the scripts loaded when {@link #start()} returned: an application tells
	 * its operators at startup when it was not.
	 * @return {@code true} once a start found Redis ready
	 * @since 0.1.0
	 */
	public boolean isReadyAtStart() {
		return this.readyAtStart;
	}

	/**
	 * Asks Redis, on the connection decisions use, whether it answers and knows every rate-limit script, and loads
	 * again a script it has forgotten (a restarted or flushed server): what a health check reports. Not guarded by
	 * the circuit breaker, and no decision: it waits up to {@code timeout}, connecting included.
	 * @param timeout how long to wait for the answers; positive
	 * @return completes once Redis answered and holds every script; exceptionally otherwise, with a
	 * {@link org.springframework.dao.DataAccessException} that says why, or a
	 * {@link java.util.concurrent.TimeoutException} when Redis did not answer within {@code timeout}
	 * @since 0.1.0
	 */
	public CompletableFuture<Void> probe(Duration timeout) {
		Assert.isTrue(timeout != null && !timeout.isNegative() && !timeout.isZero(),
				() -> "timeout must be positive, but was " + timeout);
		return this.connection.probe().orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** The client's connect timeout, or Lettuce's default. */
	private static Duration connectTimeout(LettuceConnectionFactory connectionFactory) {
		return connectionFactory.getClientConfiguration()
			.getClientOptions()
			.map((options) -> options.getSocketOptions().getConnectTimeout())
			.orElse(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION);
	}

	/**
	 * Returns whether calls made while commands are in flight travel together.
	 * @return {@code true} when batching
	 */
	public boolean isBatching() {
		return this.lanes != null;
	}

	/**
	 * Returns how many calls timed out so far, by whose lateness: Redis's, or this JVM's, whose threads kept the
	 * connection's I/O thread from a CPU for longer than a call is given.
	 * @param culprit whose lateness
	 * @return the count since this runner was created
	 * @since 0.1.0
	 */
	public long timeouts(RateLimiterTimeoutException.Culprit culprit) {
		return this.deadlines.timeouts(culprit);
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
		return run(script, keys, args, null);
	}

	/**
	 * Runs a script as {@link #runAsync} does, and waits for its answer; a reply that comes after the call
	 * timed out goes to {@code lateReply}.
	 */
	@Override
	public List<?> run(RedisScript<List> script, List<String> keys, List<String> args,
			@Nullable Consumer<List<?>> lateReply) {
		if (this.stallClock.onLoop()) {
			throw blockedOnLoop();
		}
		long deadline = System.nanoTime() + this.deadlines.timeoutNanos();
		long stalledAtSend = this.stallClock.stalled();
		PendingCall call = submit(script, keys, args, lateReply);
		return this.deadlines.await(call, deadline, stalledAtSend);
	}

	/**
	 * A blocking call made on the thread that would read its reply could only time out: it fails at once, as a
	 * timeout the client caused (the failure mode applies), and says why, once in the log.
	 */
	private ScriptTimeoutException blockedOnLoop() {
		String message = "A blocking rate-limit decision was made on " + Thread.currentThread().getName()
				+ ", the event loop that reads Redis' replies, where it could never be answered. Decide there without "
				+ "blocking (tryAcquireAsync, a reactive return type), or call from another thread; with "
				+ "ratelimit.lettuce.shared-event-loops=true the server's event loops are Lettuce's.";
		if (!this.warnedBlockedOnLoop) {
			this.warnedBlockedOnLoop = true;
			logger.warn(message);
		}
		return new ScriptTimeoutException(message, null, RateLimiterTimeoutException.Culprit.CLIENT);
	}

	@Override
	public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args) {
		return runAsync(script, keys, args, null);
	}

	/**
	 * Runs a script without holding the caller's thread; a reply that comes after the call timed out goes to
	 * {@code lateReply}, on Lettuce's I/O thread.
	 */
	@Override
	public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args,
			@Nullable Consumer<List<?>> lateReply) {
		long deadline = System.nanoTime() + this.deadlines.timeoutNanos();
		long stalledAtSend = this.stallClock.stalled();
		PendingCall call = submit(script, keys, args, lateReply);
		this.deadlines.expire(call, deadline, stalledAtSend);
		return call.answer;
	}

	/** Sends a call as a command of its own, or through its lane when batching takes its script. */
	private PendingCall submit(RedisScript<List> script, List<String> keys, List<String> args,
			@Nullable Consumer<List<?>> lateReply) {
		byte[][] keyBytes = ScriptCommands.bytes(keys);
		byte[][] argBytes = ScriptCommands.bytes(args);
		BatchLane.Lanes batches = this.lanes;
		int index = (batches != null) ? RedisScripts.batchIndex(script) : 0;
		if (batches != null && index > 0) {
			BatchCall call = new BatchCall(index, script, keyBytes, argBytes, lateReply);
			batches.of(call).offer(call);
			return call;
		}
		PendingCall.Solo call = new PendingCall.Solo(lateReply);
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

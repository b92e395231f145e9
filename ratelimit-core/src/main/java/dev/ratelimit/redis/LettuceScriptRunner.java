package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.concurrent.EventExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
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
 */
public final class LettuceScriptRunner implements RedisScriptRunner, SmartLifecycle, AutoCloseable {

	/** How often the beat on the connection's event loop runs, when the loop is free to. */
	private static final long BEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	/** How late a beat may be without counting as a stall: a timer's ordinary jitter. */
	private static final long JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/**
	 * How many commands a lane keeps in flight before calls wait to go together: with two, Redis has the
	 * next flight to run while the reply of one travels back and is handed out.
	 */
	private static final int LANE_DEPTH = 2;

	/** The most calls one batch carries. */
	private static final int MAX_BATCH = 128;

	/** The decimal digits of small numbers, as a batch's arguments take them. */
	private static final byte[][] NUMBERS = new byte[1024][];

	static {
		for (int i = 0; i < NUMBERS.length; i++) {
			NUMBERS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
		}
	}

	/** Ends the asynchronous calls Redis is late to answer; one daemon thread for every runner. */
	private static final ScheduledThreadPoolExecutor TIMER = timer();

	private final LettuceConnectionFactory connectionFactory;

	private final long timeoutNanos;

	private final Duration timeout;

	private volatile @Nullable CompletableFuture<Connected> connection;

	/**
	 * The event loop of the connection's channel, learnt from the thread that completes its replies. A
	 * timeout is declared there, after the replies that had arrived: a JVM whose CPUs are taken by other
	 * threads (a flood answered from the denial cache, say) makes a decision late, never a failure.
	 */
	private volatile @Nullable EventExecutor ioLoop;

	/**
	 * Time the connection's event loop could not run its tasks (beyond the beat), summed up by a beat
	 * task on the loop: how long this JVM kept the loop from a CPU, for the timeouts to leave out.
	 */
	private final AtomicLong stalledNanos = new AtomicLong();

	private volatile long lastBeat;

	private volatile @Nullable ScheduledFuture<?> beat;

	private volatile boolean running;

	private final boolean batching;

	/** With batching on a standalone or Sentinel Redis, the one lane. */
	private final @Nullable Lane lane;

	/** With batching on a Redis Cluster, a lane per hash slot, each made when first used. */
	private final @Nullable AtomicReferenceArray<Lane> slotLanes;

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
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
		this.timeoutNanos = timeout.toNanos();
		this.batching = batching;
		boolean cluster = connectionFactory.isClusterAware();
		this.lane = (batching && !cluster) ? new Lane() : null;
		this.slotLanes = (batching && cluster) ? new AtomicReferenceArray<>(SlotHash.SLOT_COUNT) : null;
	}

	/**
	 * Starts connecting in the background and waits for it no longer than the timeout, so that the first
	 * decisions find the connection open, and a Redis that is down delays the start by no more than that.
	 */
	@Override
	public void start() {
		this.running = true;
		try {
			connect().get(this.timeoutNanos, TimeUnit.NANOSECONDS);
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
		return this.batching;
	}

	@Override
	public boolean takesKeysOfAnySlot() {
		return !this.connectionFactory.isClusterAware();
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

	@Override
	public List<?> run(RedisScript<List> script, List<String> keys, List<String> args) {
		int index = this.batching ? RedisScripts.batchIndex(script) : 0;
		if (index > 0) {
			Call call = new Call(index, script, bytes(keys), bytes(args));
			long deadline = System.nanoTime() + this.timeoutNanos;
			long stalledAtSend = stallClock();
			lane(call).offer(call);
			return awaitCall(call, deadline, stalledAtSend);
		}
		long deadline = System.nanoTime() + this.timeoutNanos;
		Connected connected = await(connect(), deadline, null, 0);
		byte[][] keyBytes = bytes(keys);
		byte[][] argBytes = bytes(args);
		long stalledAtSend = stallClock();
		try {
			RedisFuture<List<?>> evalsha = connected.commands()
				.evalsha(script.getSha1(), ScriptOutputType.MULTI, keyBytes, argBytes);
			if (this.ioLoop == null) {
				// until a reply has told the connection's event loop
				evalsha.whenComplete((reply, failure) -> learnLoop());
			}
			return await(evalsha, deadline, connected, stalledAtSend);
		}
		catch (RedisSystemException ex) {
			if (!(ex.getCause() instanceof RedisNoScriptException)) {
				throw ex;
			}
			// a restarted or new server: EVAL sends the script, and later EVALSHA calls find it
			byte[] body = script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
			return await(connected.commands().eval(body, ScriptOutputType.MULTI, keyBytes, argBytes), deadline,
					connected, stalledAtSend);
		}
	}

	@Override
	public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args) {
		byte[][] keyBytes = bytes(keys);
		byte[][] argBytes = bytes(args);
		int index = this.batching ? RedisScripts.batchIndex(script) : 0;
		Call call = (index > 0) ? new Call(index, script, keyBytes, argBytes) : null;
		CompletableFuture<List<?>> answer = (call != null) ? call.answer : new CompletableFuture<>();
		AtomicReference<@Nullable RedisFuture<?>> sent = new AtomicReference<>();
		AtomicReference<@Nullable ScheduledFuture<?>> timer = new AtomicReference<>();
		long deadline = System.nanoTime() + this.timeoutNanos;
		expireLater(answer, timer, deadline, stallClock(), deadline, () -> {
			if (answer.completeExceptionally(
					new QueryTimeoutException("Redis did not answer within " + this.timeout.toMillis() + "ms"))) {
				if (call != null) {
					// a batch carries other calls: it is not cancelled for this one
					call.abandon();
					return;
				}
				RedisFuture<?> command = sent.get();
				if (command != null) {
					command.cancel(true);
				}
			}
		});
		answer.whenComplete((reply, failure) -> {
			ScheduledFuture<?> pending = timer.get();
			if (pending != null) {
				pending.cancel(false);
			}
		});
		if (call != null) {
			lane(call).offer(call);
			return answer;
		}
		connect().whenComplete((connected, failure) -> {
			if (failure != null) {
				answer.completeExceptionally(translate(RedisRateLimiter.unwrap(failure), null));
				return;
			}
			evaluate(connected, script, keyBytes, argBytes, sent, (reply, error) -> {
				if (error == null) {
					answer.complete(reply);
				}
				else {
					answer.completeExceptionally(error);
				}
			});
		});
		return answer;
	}

	/**
	 * Sends a script with {@code EVALSHA}, and with {@code EVAL} when the server does not know it (a
	 * restarted or new server; later calls find it), and hands its reply or translated failure to
	 * {@code done} on the connection's event loop.
	 */
	private void evaluate(Connected connected, RedisScript<List> script, byte[][] keys, byte[][] args,
			@Nullable AtomicReference<@Nullable RedisFuture<?>> sent, Reply done) {
		RedisFuture<List<?>> evalsha = connected.commands()
			.evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, args);
		if (sent != null) {
			sent.set(evalsha);
		}
		evalsha.whenComplete((reply, error) -> {
			learnLoop();
			if (error == null) {
				done.accept(reply, null);
			}
			else if (RedisRateLimiter.unwrap(error) instanceof RedisNoScriptException) {
				RedisFuture<List<?>> eval = connected.commands()
					.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), ScriptOutputType.MULTI, keys,
							args);
				if (sent != null) {
					sent.set(eval);
				}
				eval.whenComplete((evalReply, evalError) -> done.accept(evalReply,
						(evalError != null) ? translate(RedisRateLimiter.unwrap(evalError), connected) : null));
			}
			else {
				done.accept(null, translate(RedisRateLimiter.unwrap(error), connected));
			}
		});
	}

	/**
	 * Waits for a batched call's answer until its deadline, moved by the time the connection's event loop
	 * was starved since the call was made, as {@link #run} waits for a command of its own.
	 */
	private List<?> awaitCall(Call call, long deadline, long stalledAtSend) {
		try {
			try {
				return call.answer.get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException ex) {
				if (!answeredAfterPendingReads(call.answer, deadline, stalledAtSend)) {
					QueryTimeoutException timedOut = new QueryTimeoutException(
							"Redis did not answer within " + this.timeout.toMillis() + "ms", ex);
					if (call.answer.completeExceptionally(timedOut)) {
						call.abandon();
					}
				}
				return call.answer.get();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			QueryTimeoutException interrupted = new QueryTimeoutException("Interrupted while waiting for Redis", ex);
			if (call.answer.completeExceptionally(interrupted)) {
				call.abandon();
			}
			throw interrupted;
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new RedisSystemException("Redis failed to run the rate-limit script: " + ex.getCause(), ex.getCause());
		}
	}

	private Lane lane(Call call) {
		Lane only = this.lane;
		if (only != null) {
			return only;
		}
		AtomicReferenceArray<Lane> lanes = this.slotLanes;
		Assert.state(lanes != null, "not batching");
		int slot = (call.keys.length > 0) ? SlotHash.getSlot(call.keys[0]) : 0;
		Lane slotLane = lanes.get(slot);
		if (slotLane == null) {
			lanes.compareAndSet(slot, null, new Lane());
			slotLane = lanes.get(slot);
		}
		return slotLane;
	}

	/**
	 * Sends a flight: a call alone as its own script, several as one {@link RedisScripts#BATCH}. Its lane
	 * is released when the reply comes, before the calls are answered, so that the next flight is on its
	 * way to Redis while they are.
	 */
	private void send(Flight flight) {
		for (Call call : flight.calls) {
			call.flight = flight;
		}
		connect().whenComplete((connected, failure) -> {
			if (failure != null) {
				flight.fail(translate(RedisRateLimiter.unwrap(failure), null));
				return;
			}
			try {
				if (flight.calls.size() == 1) {
					Call call = flight.calls.get(0);
					evaluate(connected, call.script, call.keys, call.args, null, (reply, error) -> {
						flight.release();
						call.settle(reply, error);
					});
				}
				else {
					evaluate(connected, RedisScripts.BATCH, flight.keys(), flight.args(), null, (reply, error) -> {
						flight.release();
						flight.settle(reply, error);
					});
				}
			}
			catch (RuntimeException ex) {
				flight.fail(translate(ex, connected));
			}
		});
	}

	private static ScheduledThreadPoolExecutor timer() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "ratelimit-redis-timeout");
			thread.setDaemon(true);
			return thread;
		});
		// most calls are answered in time: their timeouts leave the queue at once
		timer.setRemoveOnCancelPolicy(true);
		return timer;
	}

	/**
	 * Declares a timeout for an asynchronous call at {@code at}, unless Redis has answered: judged on the
	 * connection's event loop after the replies it has yet to read. The call's {@code deadline} moves by
	 * the time that loop was kept from a CPU since the call was sent ({@code stalledAtSend} is the
	 * {@link #stallClock()} then), up to {@link #patienceNanos()} past it: then it is judged again.
	 */
	private void expireLater(CompletableFuture<?> answer, AtomicReference<@Nullable ScheduledFuture<?>> timer,
			long deadline, long stalledAtSend, long at, Runnable verdict) {
		timer.set(TIMER.schedule(() -> afterPendingReads(() -> {
			if (answer.isDone()) {
				return;
			}
			long until = Math.min(deadline + (stallClock() - stalledAtSend), deadline + patienceNanos());
			if (until - System.nanoTime() > 0) {
				expireLater(answer, timer, deadline, stalledAtSend, until, verdict);
			}
			else {
				verdict.run();
			}
		}), Math.max(at - System.nanoTime(), 0), TimeUnit.NANOSECONDS));
		ScheduledFuture<?> scheduled = timer.get();
		if (answer.isDone() && scheduled != null) {
			// answered while this was being scheduled
			scheduled.cancel(false);
		}
	}

	/**
	 * How long a call may wait in all when this JVM's own threads keep its event loop from a CPU: ten
	 * timeouts, at least a second. A late decision beats a failure that was not Redis's.
	 */
	private long patienceNanos() {
		return Math.max(10 * this.timeoutNanos, TimeUnit.SECONDS.toNanos(1));
	}

	private CompletableFuture<Connected> connect() {
		CompletableFuture<Connected> current = this.connection;
		if (current != null && !current.isCompletedExceptionally()) {
			return current;
		}
		synchronized (this) {
			current = this.connection;
			if (current == null || current.isCompletedExceptionally()) {
				// a thread of its own: a connect may block for the client's connect timeout
				current = CompletableFuture.supplyAsync(this::open, (task) -> {
					Thread thread = new Thread(task, "ratelimit-redis-connect");
					thread.setDaemon(true);
					thread.start();
				});
				this.connection = current;
			}
			return current;
		}
	}

	@SuppressWarnings("unchecked")
	private Connected open() {
		RedisConnection redisConnection = this.connectionFactory.getConnection();
		RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) redisConnection
			.getNativeConnection();
		this.ioLoop = null;
		// its reply tells the connection's event loop, before any script call times out
		commands.ping().whenComplete((pong, failure) -> learnLoop());
		return new Connected(redisConnection, commands);
	}

	private <T> T await(CompletableFuture<T> future, long deadline, @Nullable Connected connected, long stalledAtSend) {
		try {
			return future.get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			if (future instanceof RedisFuture<?> && answeredAfterPendingReads(future, deadline, stalledAtSend)) {
				// the reply had come, and the I/O thread had not read it yet, or it came in the time given back
				return await(future, System.nanoTime(), connected, stalledAtSend);
			}
			if (future instanceof RedisFuture<?>) {
				future.cancel(true);
			}
			throw new QueryTimeoutException("Redis did not answer within " + this.timeout.toMillis() + "ms", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			// a command is this caller's alone; the connection being opened is shared with other callers
			if (future instanceof RedisFuture<?>) {
				future.cancel(true);
			}
			throw new QueryTimeoutException("Interrupted while waiting for Redis", ex);
		}
		catch (ExecutionException ex) {
			throw translate((ex.getCause() != null) ? ex.getCause() : ex, connected);
		}
	}

	/**
	 * Remembers the event loop of the thread running this, when it is one: the connection's, for a
	 * callback of one of its replies.
	 */
	private void learnLoop() {
		EventExecutor current = CurrentEventLoop.isAvailable() ? CurrentEventLoop.get() : null;
		if (current != null && current != this.ioLoop) {
			this.ioLoop = current;
			startBeat(current);
		}
	}

	/**
	 * Starts the beat on {@code loop}, which sums up the time the loop could not run its tasks, in place of
	 * the beat of an earlier connection's loop.
	 */
	private synchronized void startBeat(EventExecutor loop) {
		ScheduledFuture<?> previous = this.beat;
		if (previous != null) {
			previous.cancel(false);
		}
		this.lastBeat = System.nanoTime();
		try {
			this.beat = loop.scheduleAtFixedRate(() -> {
				long now = System.nanoTime();
				long late = now - this.lastBeat - BEAT_NANOS;
				if (late > JITTER_NANOS) {
					this.stalledNanos.addAndGet(late);
				}
				this.lastBeat = now;
			}, BEAT_NANOS, BEAT_NANOS, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// shutting down
			this.beat = null;
		}
	}

	/**
	 * Runs a timeout's verdict on the connection's event loop, after the replies it has yet to read; at
	 * once when the loop is not known.
	 */
	private void afterPendingReads(Runnable verdict) {
		EventExecutor loop = this.ioLoop;
		if (loop == null || loop.inEventLoop() || loop.isShuttingDown()) {
			verdict.run();
			return;
		}
		try {
			loop.execute(verdict);
		}
		catch (RejectedExecutionException ex) {
			verdict.run();
		}
	}

	/**
	 * Waits for the connection's event loop to read what has arrived, then tells whether the command was
	 * answered. When that loop was kept from a CPU after the command was sent (by other threads of this
	 * JVM: {@code stalledAtSend} is the {@link #stallClock()} then), the command may have been written,
	 * or its reply read, that much later: the deadline moves by that time, up to
	 * {@link #patienceNanos()} past it, so that a starved client makes a late decision, not a failure
	 * that was not Redis's. A loop that was not starved judges at once.
	 */
	private boolean answeredAfterPendingReads(CompletableFuture<?> command, long deadline, long stalledAtSend) {
		long giveUpAt = deadline + patienceNanos();
		while (true) {
			EventExecutor loop = this.ioLoop;
			if (loop == null || loop.inEventLoop() || loop.isShuttingDown()) {
				return command.isDone();
			}
			try {
				loop.submit(() -> {
				}).await(Math.max(giveUpAt - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// shutting down: nothing more will be read
				return command.isDone();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return command.isDone();
			}
			if (command.isDone()) {
				return true;
			}
			long until = Math.min(deadline + (stallClock() - stalledAtSend), giveUpAt);
			long left = until - System.nanoTime();
			if (left <= 0) {
				return false;
			}
			try {
				command.get(left, TimeUnit.NANOSECONDS);
				return true;
			}
			catch (TimeoutException ex) {
				// judged again: the loop may have been starved meanwhile
			}
			catch (ExecutionException ex) {
				return true;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return command.isDone();
			}
		}
	}

	/**
	 * Returns the time the connection's event loop has been kept from running its tasks so far (the
	 * beats it missed, and the one it is late for now), in ns; 0 until the loop is known.
	 */
	long stallClock() {
		if (this.beat == null) {
			return this.stalledNanos.get();
		}
		long late = System.nanoTime() - this.lastBeat - BEAT_NANOS;
		return this.stalledNanos.get() + ((late > JITTER_NANOS) ? late : 0);
	}

	private <T> T await(RedisFuture<T> future, long deadline, Connected connected, long stalledAtSend) {
		return await(future.toCompletableFuture(), deadline, connected, stalledAtSend);
	}

	private RuntimeException translate(Throwable cause, @Nullable Connected connected) {
		if (cause instanceof RedisNoScriptException) {
			return new RedisSystemException("NOSCRIPT", cause);
		}
		if (cause instanceof RedisCommandExecutionException) {
			return new RedisSystemException("Redis answered the rate-limit script with an error: " + cause.getMessage(), cause);
		}
		if (connected == null || (cause instanceof RedisException && !connected.isOpen())) {
			// no connection, or one that was closed under us: the next call connects afresh
			this.connection = null;
			if (connected != null) {
				connected.connection().close();
			}
			return new RedisConnectionFailureException("Could not reach Redis: " + cause, cause);
		}
		return new RedisSystemException("Redis failed to run the rate-limit script: " + cause, cause);
	}

	private static byte[][] bytes(List<String> values) {
		byte[][] bytes = new byte[values.size()][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return bytes;
	}

	/**
	 * Closes the connection this runner holds, when it holds one of its own.
	 */
	@Override
	public void close() {
		ScheduledFuture<?> running = this.beat;
		if (running != null) {
			running.cancel(false);
			this.beat = null;
		}
		CompletableFuture<Connected> current = this.connection;
		this.connection = null;
		if (current != null) {
			// one still being opened is closed as soon as it is
			current.thenAccept((connected) -> connected.connection().close());
		}
	}

	/** What a command's reply comes to: the reply, or the failure translated. */
	@FunctionalInterface
	private interface Reply {

		void accept(@Nullable List<?> reply, @Nullable RuntimeException failure);

	}

	/**
	 * A batched call: one script's keys and arguments, and the answer its caller waits for.
	 */
	private static final class Call {

		final int index;

		final RedisScript<List> script;

		final byte[][] keys;

		final byte[][] args;

		final CompletableFuture<List<?>> answer = new CompletableFuture<>();

		/** The flight that carries it, once sent. */
		volatile @Nullable Flight flight;

		Call(int index, RedisScript<List> script, byte[][] keys, byte[][] args) {
			this.index = index;
			this.script = script;
			this.keys = keys;
			this.args = args;
		}

		void settle(@Nullable List<?> reply, @Nullable RuntimeException failure) {
			if (failure != null) {
				this.answer.completeExceptionally(failure);
			}
			else {
				this.answer.complete(reply);
			}
		}

		/**
		 * Called when this call gave up waiting: a flight whose calls all gave up no longer holds its lane,
		 * so that a Redis that never answers it holds up no later call.
		 */
		void abandon() {
			Flight carrier = this.flight;
			if (carrier == null) {
				// still queued: the lane skips it
				return;
			}
			for (Call call : carrier.calls) {
				if (!call.answer.isDone()) {
					return;
				}
			}
			carrier.release();
		}

	}

	/**
	 * The calls one command carries, and the lane it holds until it is answered.
	 */
	private static final class Flight {

		final Lane lane;

		final List<Call> calls;

		private final AtomicBoolean released = new AtomicBoolean();

		Flight(Lane lane, List<Call> calls) {
			this.lane = lane;
			this.calls = calls;
		}

		/** Lets the lane send what waited; once per flight, whatever calls it. */
		void release() {
			if (this.released.compareAndSet(false, true)) {
				this.lane.next();
			}
		}

		void fail(RuntimeException failure) {
			release();
			for (Call call : this.calls) {
				call.answer.completeExceptionally(failure);
			}
		}

		/** The batch's keys: every call's, in order. */
		byte[][] keys() {
			int count = 0;
			for (Call call : this.calls) {
				count += call.keys.length;
			}
			byte[][] keys = new byte[count][];
			int at = 0;
			for (Call call : this.calls) {
				System.arraycopy(call.keys, 0, keys, at, call.keys.length);
				at += call.keys.length;
			}
			return keys;
		}

		/**
		 * The batch's arguments (see {@code batch.lua}): the number of calls, each call's script, key count
		 * and argument list, then the distinct argument lists, each once: calls under one rule on the
		 * server's clock send the same arguments, and Redis then parses them once per batch.
		 */
		byte[][] args() {
			int n = this.calls.size();
			List<byte[][]> lists = new ArrayList<>();
			int[] listOf = new int[n];
			int count = 2 + 3 * n;
			for (int c = 0; c < n; c++) {
				byte[][] own = this.calls.get(c).args;
				int list = lists.size();
				for (int j = 0; j < lists.size(); j++) {
					if (Arrays.deepEquals(lists.get(j), own)) {
						list = j;
						break;
					}
				}
				if (list == lists.size()) {
					lists.add(own);
					count += 1 + own.length;
				}
				listOf[c] = list;
			}
			byte[][] args = new byte[count][];
			args[0] = number(n);
			for (int c = 0; c < n; c++) {
				Call call = this.calls.get(c);
				args[1 + 3 * c] = number(call.index);
				args[2 + 3 * c] = number(call.keys.length);
				args[3 + 3 * c] = number(listOf[c] + 1);
			}
			int at = 1 + 3 * n;
			args[at++] = number(lists.size());
			for (byte[][] list : lists) {
				args[at++] = number(list.length);
				System.arraycopy(list, 0, args, at, list.length);
				at += list.length;
			}
			return args;
		}

		/** Hands each call its own reply from the batch's, or the error its script raised. */
		void settle(@Nullable List<?> reply, @Nullable RuntimeException failure) {
			if (failure == null && (reply == null || reply.size() != this.calls.size())) {
				failure = new RedisSystemException("Unexpected reply from the batch script: " + reply, null);
			}
			for (int c = 0; c < this.calls.size(); c++) {
				Call call = this.calls.get(c);
				if (failure != null || reply == null) {
					call.answer.completeExceptionally(failure);
				}
				else if (reply.get(c) instanceof List<?> own) {
					call.answer.complete(own);
				}
				else {
					Object error = reply.get(c);
					String message = (error instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8)
							: String.valueOf(error);
					call.answer.completeExceptionally(new RedisSystemException(
							"Redis answered the rate-limit script with an error: " + message, null));
				}
			}
		}

		private static byte[] number(int value) {
			return (value < NUMBERS.length) ? NUMBERS[value] : Integer.toString(value).getBytes(StandardCharsets.US_ASCII);
		}

	}

	/**
	 * The calls of one Redis (with batching: of one hash slot on a Cluster) that wait for its command in
	 * flight.
	 */
	private final class Lane {

		private final ArrayDeque<Call> waiting = new ArrayDeque<>();

		/** Flights sent and not yet released. */
		private int flying;

		/** Sends a call at once when no command is in flight, or else queues it for the next flight. */
		void offer(Call call) {
			synchronized (this) {
				if (this.flying >= LANE_DEPTH) {
					this.waiting.add(call);
					int size = this.waiting.size();
					if (size >= 1024 && Integer.bitCount(size) == 1) {
						// a Redis that does not answer: callers give up, and their calls need not be kept
						this.waiting.removeIf((queued) -> queued.answer.isDone());
					}
					return;
				}
				this.flying++;
			}
			send(new Flight(this, List.of(call)));
		}

		/** Sends the calls that waited (those still waited for), or frees the lane when there are none. */
		void next() {
			List<Call> calls = null;
			synchronized (this) {
				Call call;
				while ((calls == null || calls.size() < MAX_BATCH) && (call = this.waiting.poll()) != null) {
					if (!call.answer.isDone()) {
						if (calls == null) {
							calls = new ArrayList<>(Math.min(this.waiting.size() + 1, MAX_BATCH));
						}
						calls.add(call);
					}
				}
				if (calls == null) {
					this.flying--;
					return;
				}
			}
			send(new Flight(this, calls));
		}

	}

	private record Connected(RedisConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands) {

		boolean isOpen() {
			if (this.commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
				return standalone.getStatefulConnection().isOpen();
			}
			if (this.commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
				return cluster.getStatefulConnection().isOpen();
			}
			return !this.connection.isClosed();
		}

	}

}

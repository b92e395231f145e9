package dev.ratelimit.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.util.concurrent.EventExecutor;
import org.jspecify.annotations.Nullable;

/**
 * The connection's event loop, learnt from the thread that completes its replies, and the time this JVM
 * kept that loop from a CPU: a beat task on the loop sums up how late it ran. A timeout is declared on
 * the loop, after the replies that had arrived, and moves by the time the loop was starved, so that a
 * JVM whose CPUs are taken by other threads (a flood answered from the denial cache, say) makes a
 * decision late, never a failure.
 */
class StallClock {

	/** How often the beat on the connection's event loop runs, when the loop is free to. */
	private static final long BEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	/** How late a beat may be without counting as a stall: a timer's ordinary jitter. */
	private static final long JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private volatile @Nullable EventExecutor ioLoop;

	private final AtomicLong stalledNanos = new AtomicLong();

	private volatile long lastBeat;

	private volatile @Nullable ScheduledFuture<?> beat;

	/** Whether the connection's event loop is known (a reply has been read since it connected). */
	boolean knowsLoop() {
		return this.ioLoop != null;
	}

	/** The connection's event loop, once a reply told it. */
	@Nullable EventExecutor loop() {
		return this.ioLoop;
	}

	/** Whether the calling thread is the connection's event loop, the one thread that reads its replies. */
	boolean onLoop() {
		EventExecutor loop = this.ioLoop;
		return loop != null && loop.inEventLoop();
	}

	/** Forgets the loop of an earlier connection, until a reply of the new one tells its own. */
	void forgetLoop() {
		this.ioLoop = null;
	}

	/**
	 * Remembers the event loop of the thread running this, when it is one: the connection's, for a
	 * callback of one of its replies.
	 */
	void learnLoop() {
		EventExecutor current = CurrentEventLoop.isAvailable() ? CurrentEventLoop.get() : null;
		if (current != null && current != this.ioLoop) {
			this.ioLoop = current;
			startBeat(current);
		}
	}

	/**
	 * Starts the beat on {@code loop} in place of the beat of an earlier connection's loop.
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

	/** Stops the beat. */
	void stop() {
		ScheduledFuture<?> running = this.beat;
		if (running != null) {
			running.cancel(false);
			this.beat = null;
		}
	}

	/**
	 * Returns the time the connection's event loop has been kept from running its tasks so far (the
	 * beats it missed, and the one it is late for now), in ns; 0 until the loop is known.
	 */
	long stalled() {
		if (this.beat == null) {
			return this.stalledNanos.get();
		}
		long late = System.nanoTime() - this.lastBeat - BEAT_NANOS;
		return this.stalledNanos.get() + ((late > JITTER_NANOS) ? late : 0);
	}

	/**
	 * Runs a timeout's verdict on the connection's event loop, after the replies it has yet to read; at
	 * once when the loop is not known.
	 */
	void afterPendingReads(Runnable verdict) {
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
	 * answered. When that loop was kept from a CPU after the command was sent ({@code stalledAtSend} is
	 * {@link #stalled()} then), the command may have been written, or its reply read, that much later:
	 * the deadline moves by that time, up to {@code giveUpAt}. A loop that was not starved judges at once.
	 */
	boolean answeredAfterPendingReads(CompletableFuture<?> command, long deadline, long stalledAtSend,
			long giveUpAt) {
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
			long until = Math.min(deadline + (stalled() - stalledAtSend), giveUpAt);
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

}

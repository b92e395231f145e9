package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimiterTimeoutException.Culprit;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;

/**
 * The script runner's own timeout, whatever the client's command timeout: a call is answered or failed
 * within it, counted from the call (connecting and waiting for a batch included). The timeout measures
 * Redis: time the {@link StallClock} says this JVM kept the connection's event loop from a CPU after
 * the call was made moves its deadline, up to ten timeouts (at least a second) in all, and the verdict
 * is reached after the replies that loop has yet to read. A timeout says whose lateness it was
 * ({@link Culprit}): this JVM's when its stall used up that patience, else Redis's.
 */
final class Deadlines {

	/** Ends the asynchronous calls Redis is late to answer; one daemon thread for every runner. */
	private static final ScheduledThreadPoolExecutor TIMER = timer();

	private final Duration timeout;

	private final long timeoutNanos;

	private final StallClock stallClock;

	/** The calls timed out, by {@link Culprit#ordinal()}. */
	private final LongAdder[] timeouts = { new LongAdder(), new LongAdder() };

	Deadlines(Duration timeout, StallClock stallClock) {
		this.timeout = timeout;
		this.timeoutNanos = timeout.toNanos();
		this.stallClock = stallClock;
	}

	long timeoutNanos() {
		return this.timeoutNanos;
	}

	/**
	 * Waits for a call's answer until its deadline, moved by the time the connection's event loop was
	 * starved since the call was made; a call that times out or whose caller is interrupted is abandoned.
	 * @param stalledAtSend the {@link StallClock#stalled()} when the call was made
	 */
	List<?> await(PendingCall call, long deadline, long stalledAtSend) {
		try {
			try {
				return call.answer.get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException ex) {
				if (!this.stallClock.answeredAfterPendingReads(call.answer, deadline, stalledAtSend,
						deadline + patienceNanos())) {
					if (call.answer.completeExceptionally(timedOut(ex, stalledAtSend))) {
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

	/**
	 * Fails an asynchronous call with a timeout at its deadline unless Redis has answered it, judged as
	 * {@link #await} judges, without holding a thread meanwhile; its timer goes when it is answered.
	 */
	void expire(PendingCall call, long deadline, long stalledAtSend) {
		Timer timer = new Timer();
		call.answer.whenComplete((reply, failure) -> timer.cancel());
		expireLater(call, timer, deadline, stalledAtSend, deadline);
	}

	/**
	 * Declares a timeout at {@code at}, unless Redis has answered: judged on the connection's event loop
	 * after the replies it has yet to read. The deadline moves by the time that loop was kept from a CPU
	 * since the call was made, up to {@link #patienceNanos()} past it: then it is judged again.
	 */
	private void expireLater(PendingCall call, Timer timer, long deadline, long stalledAtSend, long at) {
		timer.scheduled = TIMER.schedule(() -> this.stallClock.afterPendingReads(() -> {
			if (call.answer.isDone()) {
				return;
			}
			long until = Math.min(deadline + (this.stallClock.stalled() - stalledAtSend), deadline + patienceNanos());
			if (until - System.nanoTime() > 0) {
				expireLater(call, timer, deadline, stalledAtSend, until);
			}
			else if (call.answer.completeExceptionally(timedOut(null, stalledAtSend))) {
				call.abandon();
			}
		}), Math.max(at - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
		if (call.answer.isDone()) {
			// answered while this was being scheduled
			timer.cancel();
		}
	}

	/**
	 * How long a call may wait in all when this JVM's own threads keep its event loop from a CPU: ten
	 * timeouts, at least a second. A late decision beats a failure that was not Redis's.
	 */
	private long patienceNanos() {
		return Math.max(10 * this.timeoutNanos, TimeUnit.SECONDS.toNanos(1));
	}

	/**
	 * The timeout of a call, and whose lateness it was: this JVM's when the time it kept the connection's event
	 * loop from a CPU since the call was made used up all the patience a call is given, else Redis's.
	 */
	private QueryTimeoutException timedOut(@Nullable Throwable cause, long stalledAtSend) {
		long stalled = this.stallClock.stalled() - stalledAtSend;
		Culprit culprit = (stalled >= patienceNanos()) ? Culprit.CLIENT : Culprit.REDIS;
		this.timeouts[culprit.ordinal()].increment();
		if (culprit == Culprit.CLIENT) {
			return new ScriptTimeoutException("Redis's answer was not read within " + this.timeout.toMillis()
					+ "ms: this JVM kept its I/O thread from a CPU for " + TimeUnit.NANOSECONDS.toMillis(stalled)
					+ "ms meanwhile", cause, culprit);
		}
		return new ScriptTimeoutException("Redis did not answer within " + this.timeout.toMillis() + "ms", cause,
				culprit);
	}

	/** How many calls timed out so far, by whose lateness. */
	long timeouts(Culprit culprit) {
		return this.timeouts[culprit.ordinal()].sum();
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

	/** The scheduled verdict of one call, moved when the deadline moves. */
	private static final class Timer {

		volatile @Nullable ScheduledFuture<?> scheduled;

		void cancel() {
			ScheduledFuture<?> pending = this.scheduled;
			if (pending != null) {
				pending.cancel(false);
			}
		}

	}

}

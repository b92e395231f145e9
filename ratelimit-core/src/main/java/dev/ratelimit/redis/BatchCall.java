package dev.ratelimit.redis;

import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * A call that may travel in a batch: one script's keys and arguments, and the answer its caller waits
 * for.
 */
final class BatchCall extends PendingCall {

	/** The script's place in {@code batch.lua} ({@link RedisScripts#batchIndex}). */
	final int index;

	final RedisScript<List> script;

	final byte[][] keys;

	final byte[][] args;

	/** The flight that carries it, once sent. */
	volatile @Nullable BatchFlight flight;

	BatchCall(int index, RedisScript<List> script, byte[][] keys, byte[][] args,
			@Nullable Consumer<List<?>> lateReply) {
		super(lateReply);
		this.index = index;
		this.script = script;
		this.keys = keys;
		this.args = args;
	}

	/**
	 * Called when this call gave up waiting: a flight whose calls all gave up no longer holds its lane,
	 * so that a Redis that never answers it holds up no later call. A batch carries other calls: it is
	 * not cancelled for this one.
	 */
	@Override
	void abandon() {
		BatchFlight carrier = this.flight;
		if (carrier == null) {
			// still queued: the lane skips it
			return;
		}
		for (BatchCall call : carrier.calls) {
			if (!call.answer.isDone()) {
				return;
			}
		}
		carrier.release();
	}

}

package dev.ratelimit.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;

/**
 * The calls of one Redis (on a Cluster: of one hash slot) that wait for its commands in flight. A call
 * that finds fewer than {@link #DEPTH} flights goes out at once; else it waits for one to be answered
 * and then goes with every other call that waited, up to {@link #MAX_BATCH}.
 */
final class BatchLane {

	/**
	 * How many commands a lane keeps in flight before calls wait to go together: with two, Redis has the
	 * next flight to run while the reply of one travels back and is handed out.
	 */
	static final int DEPTH = 2;

	/** The most calls one batch carries. */
	static final int MAX_BATCH = 128;

	private final Consumer<BatchFlight> sender;

	private final ArrayDeque<BatchCall> waiting = new ArrayDeque<>();

	/** Flights sent and not yet released. */
	private int flying;

	/**
	 * @param sender sends a flight; the flight is released when its reply comes, before its calls are
	 * answered, so that the next flight is on its way while they are
	 */
	BatchLane(Consumer<BatchFlight> sender) {
		this.sender = sender;
	}

	/** Sends a call at once when fewer than {@link #DEPTH} flights are out, or else queues it. */
	void offer(BatchCall call) {
		synchronized (this) {
			if (this.flying >= DEPTH) {
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
		this.sender.accept(new BatchFlight(this, List.of(call)));
	}

	/** Sends the calls that waited (those still waited for), or frees a place when there are none. */
	void next() {
		List<BatchCall> calls = null;
		synchronized (this) {
			BatchCall call;
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
		this.sender.accept(new BatchFlight(this, calls));
	}

	/** Flights out now, for tests. */
	synchronized int flying() {
		return this.flying;
	}

	/** The lanes of a runner: one, or one per hash slot of a Cluster, each made when first used. */
	static final class Lanes {

		private final Consumer<BatchFlight> sender;

		private final @Nullable BatchLane only;

		private final @Nullable AtomicReferenceArray<BatchLane> slots;

		Lanes(boolean cluster, Consumer<BatchFlight> sender) {
			this.sender = sender;
			this.only = cluster ? null : new BatchLane(sender);
			this.slots = cluster ? new AtomicReferenceArray<>(
					SlotHash.SLOT_COUNT) : null;
		}

		BatchLane of(BatchCall call) {
			BatchLane lane = this.only;
			if (lane != null) {
				return lane;
			}
			AtomicReferenceArray<BatchLane> lanes = this.slots;
			if (lanes == null) {
				throw new IllegalStateException("no lanes");
			}
			int slot = (call.keys.length > 0) ? SlotHash.getSlot(call.keys[0]) : 0;
			BatchLane slotLane = lanes.get(slot);
			if (slotLane == null) {
				lanes.compareAndSet(slot, null, new BatchLane(this.sender));
				slotLane = lanes.get(slot);
			}
			return slotLane;
		}

	}

}

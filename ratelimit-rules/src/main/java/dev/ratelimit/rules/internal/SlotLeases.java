package dev.ratelimit.rules.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitSlot;

/**
 * The slots of requests in flight this instance holds ({@code concurrency} rules): each renewed every half lease
 * while its request runs, so that a long request keeps its place and the slots of an instance that crashed come back
 * when their leases end; given back when the request's response completes. One daemon thread, started with the first
 * slot, runs the renewals; it holds no thread while Redis answers.
 */
final class SlotLeases implements AutoCloseable {

	/** How often the held slots are looked over: a quarter of the shortest lease (1s). */
	static final long TICK_MILLIS = 250;

	private final EnforcerLogs logs;

	private final LongSupplier nanoTime;

	/** Each held slot, and when it was taken or last renewed (nanoTime). */
	private final Map<RateLimitSlot, Long> held = new ConcurrentHashMap<>();

	private volatile @Nullable ScheduledExecutorService timer;

	private boolean closed;

	SlotLeases(EnforcerLogs logs, LongSupplier nanoTime) {
		this.logs = logs;
		this.nanoTime = nanoTime;
	}

	/**
	 * Holds a request's slot until {@link #release}: renewed every half lease. A slot that holds nothing is ignored.
	 * @param slot the slot
	 */
	void hold(RateLimitSlot slot) {
		if (!slot.held() || slot.released()) {
			return;
		}
		this.held.put(slot, this.nanoTime.getAsLong());
		startTimer();
	}

	/**
	 * Gives a slot back, and stops renewing it.
	 * @param slot the slot
	 * @return completes when given back, exceptionally when Redis could not take it (it then comes back when its
	 * lease ends)
	 */
	CompletableFuture<Void> release(RateLimitSlot slot) {
		this.held.remove(slot);
		try {
			return slot.releaseAsync();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Returns how many slots this instance holds now.
	 * @return the slots
	 */
	public int size() {
		return this.held.size();
	}

	/**
	 * Renews the slots held for half their lease or more; one whose lease had ended (Redis paused past it, say) is
	 * taken back by its renewal, past the limit if another request took its place meanwhile, and logged: its request
	 * still runs, so no new request may start until the key is under its limit again. One Redis could not renew is
	 * tried again at the next tick.
	 * @return completes when every renewal is answered; never exceptionally
	 */
	CompletableFuture<Void> renewDue() {
		long now = this.nanoTime.getAsLong();
		List<CompletableFuture<?>> renewals = new ArrayList<>(0);
		this.held.forEach((slot, since) -> {
			if (now - since < slot.lease().toNanos() / 2) {
				return;
			}
			CompletableFuture<Boolean> renewed;
			try {
				renewed = slot.renewAsync();
			}
			catch (RuntimeException ex) {
				renewed = CompletableFuture.failedFuture(ex);
			}
			renewals.add(renewed.handle((stillHeld, failure) -> {
				if (failure != null) {
					this.logs.slotNotRenewed(RateLimitEnforcer.unwrap(failure));
				}
				else if (Boolean.TRUE.equals(stillHeld)) {
					this.held.replace(slot, since, now);
				}
				else if (!slot.released() && this.held.replace(slot, since, now)) {
					// its lease had ended: the renewal took it back
					this.logs.slotLost(slot);
				}
				else {
					this.held.remove(slot);
				}
				return null;
			}));
		});
		return CompletableFuture.allOf(renewals.toArray(CompletableFuture[]::new));
	}

	private void startTimer() {
		if (this.timer != null) {
			return;
		}
		synchronized (this) {
			if (this.timer != null || this.closed) {
				return;
			}
			ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "ratelimit-slot-leases");
				thread.setDaemon(true);
				return thread;
			});
			started.scheduleWithFixedDelay(this::renewSafely, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
			this.timer = started;
		}
	}

	private void renewSafely() {
		try {
			renewDue();
		}
		catch (RuntimeException ex) {
			this.logs.slotNotRenewed(ex);
		}
	}

	/**
	 * Stops renewing: the slots still held come back when their leases end.
	 */
	@Override
	public synchronized void close() {
		this.closed = true;
		ScheduledExecutorService started = this.timer;
		if (started != null) {
			started.shutdownNow();
			this.timer = null;
		}
	}

}

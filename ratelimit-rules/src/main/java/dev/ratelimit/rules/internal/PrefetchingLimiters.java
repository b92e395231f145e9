package dev.ratelimit.rules.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.PrefetchingRateLimiter;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rules.RateLimitRule;

/**
 * The prefetching limiters of the rules with {@code prefetch}: one per limiter and batch size, swept once a second
 * (so that what a key gone quiet holds goes back even when the instance decides nothing else), given back at close.
 */
final class PrefetchingLimiters implements AutoCloseable {

	/** How often the batches are swept: the limiters' quiet time. */
	private static final long SWEEP_MILLIS = PrefetchingRateLimiter.DEFAULT_QUIET_AFTER.toMillis();

	private final ConcurrentMap<Prefetch, PrefetchingRateLimiter> limiters = new ConcurrentHashMap<>();

	private final EnforcerLogs logs;

	private @Nullable ScheduledExecutorService timer;

	private boolean closed;

	PrefetchingLimiters(EnforcerLogs logs) {
		this.logs = logs;
	}

	/**
	 * Returns the limiter that decides a rule's requests: {@code limiter} itself, or for a rule with {@code prefetch}
	 * the one that spends batches of permits taken from it.
	 */
	RateLimiter of(RateLimitRule rule, RateLimiter limiter) {
		if (rule.prefetch() <= 0) {
			return limiter;
		}
		PrefetchingRateLimiter prefetching = this.limiters.get(new Prefetch(limiter, rule.prefetch()));
		if (prefetching != null) {
			return prefetching;
		}
		startTimer();
		return this.limiters.computeIfAbsent(new Prefetch(limiter, rule.prefetch()),
				(key) -> PrefetchingRateLimiter.builder(key.limiter(), key.permits()).build());
	}

	private synchronized void startTimer() {
		if (this.timer != null || this.closed) {
			return;
		}
		ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "ratelimit-prefetch-sweeps");
			thread.setDaemon(true);
			return thread;
		});
		started.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
		this.timer = started;
	}

	private void sweep() {
		for (PrefetchingRateLimiter limiter : this.limiters.values()) {
			try {
				limiter.sweep();
			}
			catch (RuntimeException ex) {
				this.logs.unexpected(ex);
			}
		}
	}

	/** Stops sweeping and gives back what every limiter holds; their requests are decided one by one from now on. */
	@Override
	public void close() {
		synchronized (this) {
			this.closed = true;
			ScheduledExecutorService started = this.timer;
			if (started != null) {
				started.shutdownNow();
				this.timer = null;
			}
		}
		this.limiters.values().forEach(PrefetchingRateLimiter::close);
	}

	/** A limiter and how many permits of a key its prefetching limiter takes at once. */
	private record Prefetch(RateLimiter limiter, long permits) {
	}

}

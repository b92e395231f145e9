package dev.ratelimit.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.RateLimitOverrides;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * The {@link RateLimitOverrides} of an application kept in Redis, in one hash, {@code <prefix>:overrides}, that
 * every instance reads: each instance reads it once per refresh interval (one script call, {@code overrides.lua}),
 * in the background while started, and answers decisions from what it read. An override set or removed through one
 * instance applies there at once and on the others from their next read: within one refresh interval (plus the
 * read's own time). An override with a duration ends by the Redis server's clock; each instance stops applying it at
 * its end by its own monotonic clock, set against Redis' at each read. The hash expires with its longest-lived
 * override (it has no TTL while an override without a duration is in it): Redis drops it itself.
 *
 * @since 0.1.0
 */
public final class RedisRateLimitOverrides implements RateLimitOverrides, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RedisRateLimitOverrides.class);

	private final RedisScriptRunner runner;

	private final List<String> keys;

	private final Duration refreshInterval;

	private final LongSupplier nanoTime;

	private volatile OverrideView view = OverrideView.EMPTY;

	private volatile @Nullable ScheduledExecutorService refresher;

	private volatile boolean failing;

	/**
	 * Creates the overrides of the limiters whose keys start with a prefix.
	 * @param runner runs the scripts
	 * @param keyPrefix the limiters' key prefix, such as {@code rate}
	 * @param refreshInterval how often a started instance reads the overrides again; positive
	 */
	public RedisRateLimitOverrides(RedisScriptRunner runner, String keyPrefix, Duration refreshInterval) {
		this(runner, keyPrefix, refreshInterval, System::nanoTime);
	}

	/** Overrides whose ends a test's monotonic clock tells. */
	RedisRateLimitOverrides(RedisScriptRunner runner, String keyPrefix, Duration refreshInterval,
			LongSupplier nanoTime) {
		Assert.isTrue(refreshInterval != null && !refreshInterval.isNegative() && !refreshInterval.isZero(),
				() -> "refreshInterval must be positive, but was " + refreshInterval);
		this.runner = runner;
		this.keys = List.of(RedisKeys.checkPrefix(keyPrefix) + ":overrides");
		this.refreshInterval = refreshInterval;
		this.nanoTime = nanoTime;
	}

	@Override
	public @Nullable List<RateLimit> limits(String rule, String key) {
		return this.view.limits(rule, key);
	}

	@Override
	public RateLimitOverride set(String rule, String key, List<RateLimit> limits, @Nullable Duration duration) {
		Assert.isTrue(rule.indexOf('\n') < 0, "a rule's name has no line break");
		Assert.isTrue(duration == null || duration.toMillis() > 0, () -> "duration must be 1ms or more, but was " + duration);
		List<?> reply = this.runner.run(RedisScripts.OVERRIDE, this.keys, List.of(OverrideView.field(rule, key),
				OverrideView.limits(limits), (duration != null) ? Long.toString(duration.toMillis()) : ""));
		long ends = RedisScripts.number(reply, 1);
		refresh();
		return new RateLimitOverride(rule, key, limits, (ends == 0) ? null : Instant.ofEpochMilli(ends));
	}

	@Override
	public boolean remove(String rule, String key) {
		List<?> reply = this.runner.run(RedisScripts.OVERRIDE, this.keys,
				List.of(OverrideView.field(rule, key), "", ""));
		refresh();
		return RedisScripts.number(reply, 2) == 1;
	}

	@Override
	public List<RateLimitOverride> list(String rule) {
		refresh();
		return this.view.list(rule);
	}

	/**
	 * Reads the overrides from Redis now, in one script call, and applies what it read in this instance.
	 * @throws org.springframework.dao.DataAccessException when Redis fails or does not answer in time; the overrides
	 * read last stay in force
	 */
	public void refresh() {
		long readAt = this.nanoTime.getAsLong();
		List<?> reply = this.runner.run(RedisScripts.OVERRIDES, this.keys, List.of());
		this.view = OverrideView.of(reply, readAt, this.nanoTime);
	}

	/**
	 * Returns how often a started instance reads the overrides again.
	 * @return the interval
	 */
	public Duration refreshInterval() {
		return this.refreshInterval;
	}

	/**
	 * Reads the overrides every refresh interval in the background, the first time at once.
	 */
	@Override
	public void start() {
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "ratelimit-overrides");
			thread.setDaemon(true);
			return thread;
		});
		long interval = this.refreshInterval.toNanos();
		executor.scheduleWithFixedDelay(this::refreshInBackground, 0, interval, TimeUnit.NANOSECONDS);
		this.refresher = executor;
	}

	private void refreshInBackground() {
		try {
			refresh();
			if (this.failing) {
				this.failing = false;
				logger.info("Rate-limit overrides are read from Redis again");
			}
		}
		catch (RuntimeException ex) {
			// once per outage, not once per interval: the overrides read last stay in force meanwhile
			if (!this.failing) {
				this.failing = true;
				logger.warn("Could not read the rate-limit overrides from Redis; those read last stay in force until "
						+ "a read succeeds (tried every " + this.refreshInterval + ")", ex);
			}
		}
	}

	@Override
	public void stop() {
		ScheduledExecutorService executor = this.refresher;
		this.refresher = null;
		if (executor != null) {
			executor.shutdownNow();
		}
	}

	@Override
	public boolean isRunning() {
		return this.refresher != null;
	}

}

package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.LocalDenialCache;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Base of the Redis rate limiters: checks arguments, builds the keys, and runs the algorithm's Lua
 * script in one {@code EVALSHA} round trip. Time comes from the Redis server unless a {@link Clock}
 * is given. When Redis cannot decide (down, too slow, or its circuit breaker open), the fallback
 * decides, or the call fails with {@link RateLimiterUnavailableException}.
 */
public abstract class AbstractRedisRateLimiter implements RateLimiter {

	/** The key prefix of the seed's keys, {@code rate:<algorithm>:<id>}. */
	public static final String DEFAULT_KEY_PREFIX = "rate";

	private static final String SCRIPT_LOCATION = "META-INF/ratelimit/scripts/";

	private static final RedisScript<List> RESET = RedisScript.of(read("reset"), List.class);

	private final RedisScript<List> script;

	private final RedisRateLimiterSettings settings;

	/**
	 * Creates a limiter.
	 * @param script the algorithm's script, from {@link #loadScript(String)}
	 * @param settings how to reach Redis and what to do when it cannot decide
	 */
	protected AbstractRedisRateLimiter(RedisScript<List> script, RedisRateLimiterSettings settings) {
		if (settings == null) {
			throw new IllegalArgumentException("settings must not be null");
		}
		this.script = script;
		this.settings = settings;
	}

	/**
	 * Loads an algorithm's script once: {@code META-INF/ratelimit/scripts/prelude.lua}, which reads the
	 * arguments every algorithm shares, then {@code <name>.lua}, as one script. Its SHA-1 is computed
	 * once and it runs with {@code EVALSHA}, falling back to {@code EVAL} only when the server lacks it.
	 * @param name the script's file name without extension
	 * @return the script
	 */
	protected static RedisScript<List> loadScript(String name) {
		return RedisScript.of(read("prelude") + read(name), List.class);
	}

	private static String read(String name) {
		String location = SCRIPT_LOCATION + name + ".lua";
		try (InputStream in = AbstractRedisRateLimiter.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + location + " is missing from the class path");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + location, ex);
		}
	}

	@Override
	public List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits) {
		if (key == null) {
			throw new IllegalArgumentException("key must not be null");
		}
		checkLimits(limits, permits);
		LocalDenialCache denials = this.settings.denialCache();
		String denialKey = null;
		long sentAt = 0;
		if (denials != null) {
			denialKey = denialKey(key, limits);
			List<RateLimitDecision> cached = denials.lookup(denialKey, permits);
			if (cached != null) {
				return cached;
			}
			sentAt = denials.now();
		}
		List<String> keys = keys(key, limits);
		List<String> args = args(limits, permits);
		CircuitBreaker breaker = this.settings.circuitBreaker();
		if (breaker != null && !breaker.tryAcquirePermission()) {
			return unavailable(key, limits, permits, null);
		}
		List<RateLimitDecision> decisions;
		try {
			decisions = decisions(this.settings.runner().run(this.script, keys, args), limits);
		}
		catch (RuntimeException ex) {
			if (breaker != null) {
				breaker.onFailure(ex);
			}
			return unavailable(key, limits, permits, ex);
		}
		catch (Error ex) {
			// the breaker hears of every call it let through, or a probe would never report back
			if (breaker != null) {
				breaker.onFailure(ex);
			}
			throw ex;
		}
		if (breaker != null) {
			breaker.onSuccess();
		}
		if (denials != null) {
			denials.remember(denialKey, permits, sentAt, decisions);
		}
		return decisions;
	}

	private String denialKey(String key, List<RateLimit> limits) {
		StringBuilder builder = new StringBuilder(denialKeyPrefix(key));
		for (RateLimit limit : limits) {
			builder.append(limit.limit()).append('/').append(limit.window().toNanos()).append('/')
				.append(limit.burst()).append('\u0000');
		}
		return builder.toString();
	}

	private String denialKeyPrefix(String key) {
		return this.settings.keyPrefix() + ":" + keyKind() + "\u0000" + key + "\u0000";
	}

	/**
	 * Returns the state of {@code key} under {@code limits} without taking anything: the permits
	 * {@code remaining} now, whether a call for one would be {@code allowed} and else its
	 * {@code retryAfter}, and {@code resetAfter}. Bypasses the denial cache and the fallback; fails when
	 * Redis cannot answer.
	 * @param key whose state to read
	 * @param limits the limits
	 * @return one decision per limit, for a call of one permit
	 * @throws IllegalArgumentException when an argument is invalid
	 * @throws RateLimiterUnavailableException when Redis cannot answer
	 */
	@Override
	public List<RateLimitDecision> inspect(String key, List<RateLimit> limits) {
		if (key == null) {
			throw new IllegalArgumentException("key must not be null");
		}
		checkLimits(limits, 1);
		try {
			// negative permits: the script tells what a call for one would be told, and writes nothing
			return decisions(this.settings.runner().run(this.script, keys(key, limits), args(limits, -1)), limits);
		}
		catch (RuntimeException ex) {
			throw new RateLimiterUnavailableException("Redis could not read the state: " + ex, ex);
		}
	}

	/**
	 * Deletes the state of {@code key} under {@code limits}, so that it is back to full at once, and
	 * forgets the rejections this instance remembers for it. Other instances may refuse it from their
	 * own memory until the retry time they were given.
	 * @param key whose state to delete
	 * @param limits the limits
	 * @return how many Redis keys were deleted
	 * @throws RateLimiterUnavailableException when Redis cannot answer
	 */
	@Override
	public long reset(String key, List<RateLimit> limits) {
		if (key == null) {
			throw new IllegalArgumentException("key must not be null");
		}
		checkLimits(limits, 1);
		LocalDenialCache denials = this.settings.denialCache();
		if (denials != null) {
			denials.forget(denialKeyPrefix(key));
		}
		try {
			return number(this.settings.runner().run(RESET, keys(key, limits), List.of()), 0);
		}
		catch (RuntimeException ex) {
			throw new RateLimiterUnavailableException("Redis could not reset the key: " + ex, ex);
		}
	}

	private List<String> keys(String key, List<RateLimit> limits) {
		String id = RedisKeys.segment(key);
		List<String> keys = new ArrayList<>(limits.size());
		for (RateLimit limit : limits) {
			// one limit keeps the seed's key; several share a hash tag so that the script stays on one slot
			keys.add((limits.size() == 1) ? this.settings.keyPrefix() + ":" + keyKind() + ":" + id
					: this.settings.keyPrefix() + ":" + keyKind() + ":{" + id + "}:" + limit.windowLabel());
		}
		return keys;
	}

	private List<String> args(List<RateLimit> limits, long permits) {
		List<String> args = new ArrayList<>(2 + 3 * limits.size());
		Clock clock = this.settings.clock();
		args.add((clock != null) ? Long.toString(micros(clock.instant())) : "");
		args.add(Long.toString(permits));
		for (RateLimit limit : limits) {
			args.add(Long.toString(limit.limit()));
			args.add(Long.toString(micros(limit.window())));
			args.add(Long.toString(limit.burst()));
		}
		return args;
	}

	private List<RateLimitDecision> unavailable(String key, List<RateLimit> limits, long permits,
			@Nullable RuntimeException cause) {
		RateLimiter fallback = this.settings.fallback();
		if (fallback != null) {
			return fallback.tryAcquire(keyKind() + ":" + key, limits, permits);
		}
		throw new RateLimiterUnavailableException((cause != null) ? "Redis could not decide: " + cause
				: "Redis is not called while its circuit breaker is open", cause);
	}

	/**
	 * Returns the settings this limiter runs with.
	 * @return the settings
	 */
	public RedisRateLimiterSettings settings() {
		return this.settings;
	}

	private void checkLimits(List<RateLimit> limits, long permits) {
		if (limits == null || limits.isEmpty()) {
			throw new IllegalArgumentException("limits must hold at least one limit");
		}
		Set<Duration> windows = new HashSet<>();
		for (RateLimit limit : limits) {
			if (limit == null) {
				throw new IllegalArgumentException("limit must not be null");
			}
			if (limit.burst() != limit.limit() && !algorithm().acceptsBurst()) {
				throw new IllegalArgumentException("burst applies to the token bucket and GCRA only; "
						+ algorithm() + " takes a limit whose burst is its limit, but burst was " + limit.burst());
			}
			if (!windows.add(limit.window())) {
				throw new IllegalArgumentException("limits must have distinct windows, but " + limit.window()
						+ " appears twice");
			}
			long windowMicros = micros(limit.window());
			if (exceedsExactRange(limit.limit(), windowMicros) || exceedsExactRange(limit.burst(), windowMicros)) {
				throw new IllegalArgumentException("limit (or burst) × window in µs must stay below 2^53 for exact "
						+ "arithmetic, but " + Math.max(limit.limit(), limit.burst()) + " per " + limit.windowLabel()
						+ " exceeds it; use a shorter window with a proportional limit, or the fixed window or the "
						+ "sliding log, which do not multiply them");
			}
			if (permits > limit.burst()) {
				throw new IllegalArgumentException("permits must not exceed the " + (algorithm().acceptsBurst() ? "burst" : "limit")
						+ " of " + limit.burst() + ", but was " + permits);
			}
		}
		if (permits < 1) {
			throw new IllegalArgumentException("permits must be at least 1, but was " + permits);
		}
	}

	/**
	 * Checks the client id of the seed's {@code isAllowed} methods.
	 * @param clientId the id
	 * @return the id
	 * @throws IllegalArgumentException when it is null
	 */
	protected static String requireClientId(String clientId) {
		if (clientId == null) {
			throw new IllegalArgumentException("clientId must not be null");
		}
		return clientId;
	}

	/**
	 * Returns the Redis key that holds the state of {@code id} under a single limit:
	 * {@code <prefix>:<kind>:<id>}, the id as {@link RedisKeys#segment(String)} renders it. Under several
	 * limits, each has {@code <prefix>:<kind>:{<id>}:<window>}.
	 * @param id the caller's key
	 * @return the Redis key
	 */
	public String redisKey(String id) {
		return this.settings.keyPrefix() + ":" + keyKind() + ":" + RedisKeys.segment(id);
	}

	/**
	 * Returns the key segment naming this algorithm, for example {@code fixed}.
	 * @return the segment
	 */
	protected abstract String keyKind();

	@Override
	public abstract Algorithm algorithm();

	private static List<RateLimitDecision> decisions(@Nullable List<?> reply, List<RateLimit> limits) {
		if (reply == null || reply.size() != 4 * limits.size()) {
			throw new IllegalStateException("Unexpected reply from the rate-limit script: " + reply);
		}
		List<RateLimitDecision> decisions = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			long limit = limits.get(i).limit();
			boolean admits = number(reply, 4 * i) == 1;
			long remaining = number(reply, 4 * i + 1);
			Duration retryAfter = Duration.ofNanos(number(reply, 4 * i + 2) * 1000);
			Duration resetAfter = Duration.ofNanos(number(reply, 4 * i + 3) * 1000);
			decisions.add(admits ? RateLimitDecision.allowed(limit, remaining, resetAfter)
					: RateLimitDecision.rejected(limit, remaining, retryAfter, resetAfter));
		}
		return decisions;
	}

	private static long number(List<?> reply, int index) {
		return ((Number) reply.get(index)).longValue();
	}

	private boolean exceedsExactRange(long count, long windowMicros) {
		Algorithm algorithm = algorithm();
		boolean multiplies = algorithm == Algorithm.SLIDING_WINDOW_COUNTER || algorithm.acceptsBurst();
		return multiplies && (windowMicros > RateLimit.MAX_LIMIT / count);
	}

	private static long micros(Instant instant) {
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
	}

	private static long micros(Duration duration) {
		return Math.addExact(Math.multiplyExact(duration.getSeconds(), 1_000_000L), duration.getNano() / 1000);
	}

}

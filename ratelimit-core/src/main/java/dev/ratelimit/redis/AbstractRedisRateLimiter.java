package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Base of the Redis rate limiters: checks arguments, builds the key, and runs the algorithm's Lua
 * script in one {@code EVALSHA} round trip. Time comes from the Redis server unless a {@link Clock}
 * is given.
 */
public abstract class AbstractRedisRateLimiter implements RateLimiter {

	/** The key prefix of the seed's keys, {@code rate:<algorithm>:<id>}. */
	public static final String DEFAULT_KEY_PREFIX = "rate";

	private static final String SCRIPT_LOCATION = "META-INF/ratelimit/scripts/";

	private final StringRedisTemplate redisTemplate;

	private final RedisScript<List> script;

	private final String keyPrefix;

	private final @Nullable Clock clock;

	/**
	 * Creates a limiter.
	 * @param redisTemplate the template to run scripts with
	 * @param script the algorithm's script, from {@link #loadScript(String)}
	 * @param keyPrefix the first segment of every key
	 * @param clock the time source, or {@code null} to use the Redis server's {@code TIME}
	 */
	protected AbstractRedisRateLimiter(StringRedisTemplate redisTemplate, RedisScript<List> script, String keyPrefix,
			@Nullable Clock clock) {
		if (redisTemplate == null) {
			throw new IllegalArgumentException("redisTemplate must not be null");
		}
		this.redisTemplate = redisTemplate;
		this.script = script;
		this.keyPrefix = RedisKeys.checkPrefix(keyPrefix);
		this.clock = clock;
	}

	/**
	 * Loads a script from {@code META-INF/ratelimit/scripts/<name>.lua} once; its SHA-1 is computed once
	 * and it runs with {@code EVALSHA}, falling back to {@code EVAL} only when the server lacks it.
	 * @param name the script's file name without extension
	 * @return the script
	 */
	protected static RedisScript<List> loadScript(String name) {
		String location = SCRIPT_LOCATION + name + ".lua";
		try (InputStream in = AbstractRedisRateLimiter.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + location + " is missing from the class path");
			}
			return RedisScript.of(new String(in.readAllBytes(), StandardCharsets.UTF_8), List.class);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + location, ex);
		}
	}

	@Override
	public RateLimitDecision tryAcquire(String key, RateLimit limit, long permits) {
		if (key == null) {
			throw new IllegalArgumentException("key must not be null");
		}
		if (limit == null) {
			throw new IllegalArgumentException("limit must not be null");
		}
		if (permits < 1) {
			throw new IllegalArgumentException("permits must be at least 1, but was " + permits);
		}
		if (permits > limit.limit()) {
			throw new IllegalArgumentException(
					"permits must not exceed the limit of " + limit.limit() + ", but was " + permits);
		}
		String now = (this.clock != null) ? Long.toString(micros(this.clock.instant())) : "";
		List<?> reply = this.redisTemplate.execute(this.script, List.of(redisKey(key)), now,
				Long.toString(limit.limit()), Long.toString(micros(limit.window())), Long.toString(permits));
		return decision(reply, limit);
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
	 * Returns the Redis key that holds the state of {@code id}: {@code <prefix>:<kind>:<id>}, the id as
	 * {@link RedisKeys#segment(String)} renders it.
	 * @param id the caller's key
	 * @return the Redis key
	 */
	public String redisKey(String id) {
		return this.keyPrefix + ":" + keyKind() + ":" + RedisKeys.segment(id);
	}

	/**
	 * Returns the key segment naming this algorithm, for example {@code fixed}.
	 * @return the segment
	 */
	protected abstract String keyKind();

	@Override
	public abstract Algorithm algorithm();

	private static RateLimitDecision decision(@Nullable List<?> reply, RateLimit limit) {
		if (reply == null || reply.size() != 4) {
			throw new IllegalStateException("Unexpected reply from the rate-limit script: " + reply);
		}
		boolean allowed = ((Number) reply.get(0)).longValue() == 1;
		long remaining = ((Number) reply.get(1)).longValue();
		Duration retryAfter = Duration.ofNanos(((Number) reply.get(2)).longValue() * 1000);
		Duration resetAfter = Duration.ofNanos(((Number) reply.get(3)).longValue() * 1000);
		return allowed ? RateLimitDecision.allowed(limit.limit(), remaining, resetAfter)
				: RateLimitDecision.rejected(limit.limit(), remaining, retryAfter, resetAfter);
	}

	private static long micros(Instant instant) {
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
	}

	private static long micros(Duration duration) {
		return Math.addExact(Math.multiplyExact(duration.getSeconds(), 1_000_000L), duration.getNano() / 1000);
	}

}

package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * What differs between the algorithms on Redis, in one table: each one's Lua script and the segment
 * that names it in keys; and what every script is sent and answers. Scripts are read once from
 * {@code META-INF/ratelimit/scripts/<name>.lua}, each after the shared {@code prelude.lua}, and run
 * with {@code EVALSHA}.
 */
final class RedisScripts {

	/** Where the scripts lie on the class path. */
	static final String LOCATION = "META-INF/ratelimit/scripts/";

	/** Deletes a key's state under every limit. */
	static final RedisScript<List> RESET = RedisScript.of(read("reset"), List.class);

	/** Gives back permits a granted call took, under any algorithm (the last argument names it). */
	static final RedisScript<List> REFUND = RedisScript.of(read("prelude") + read("refund"), List.class);

	/** Takes permits whatever the budget holds, under any algorithm (the last argument names it). */
	static final RedisScript<List> CHARGE = RedisScript.of(read("prelude") + read("charge"), List.class);

	/** Reads a key's block, or blocks it by hand. */
	static final RedisScript<List> BLOCK_STATE = RedisScript.of(read("block-state"), List.class);

	/** Sets or removes one key's override of its rule's limits ({@code override.lua}). */
	static final RedisScript<List> OVERRIDE = RedisScript.of(read("override"), List.class);

	/** Reads every override in force ({@code overrides.lua}). */
	static final RedisScript<List> OVERRIDES = RedisScript.of(read("overrides"), List.class);

	/** Takes a slot of work in flight for a key ({@code concurrency.lua}). */
	static final RedisScript<List> CONCURRENCY = RedisScript.of(read("prelude") + read("concurrency"), List.class);

	/** Gives back or renews a slot of work in flight ({@code slot.lua}). */
	static final RedisScript<List> SLOT = RedisScript.of(read("prelude") + read("slot"), List.class);

	/** The index of {@link #CONCURRENCY} among the functions of {@link #TOGETHER}, after the algorithms'. */
	static final int CONCURRENCY_INDEX = Algorithm.values().length + 1;

	private static final Map<Algorithm, RedisScripts> TABLE = new EnumMap<>(Algorithm.class);

	static {
		add(Algorithm.FIXED_WINDOW, "fixed-window", "fixed");
		add(Algorithm.SLIDING_WINDOW_LOG, "sliding-window-log", "sliding");
		add(Algorithm.SLIDING_WINDOW_COUNTER, "sliding-window-counter", "sliding-counter");
		add(Algorithm.TOKEN_BUCKET, "token-bucket", "token-bucket");
		add(Algorithm.GCRA, "gcra", "gcra");
	}

	/**
	 * Decides several calls, of any algorithms, all or nothing in one script: every algorithm's script as
	 * a function {@code decide[ordinal + 1]} of its own KEYS and ARGV, then {@code together.lua}.
	 */
	static final RedisScript<List> TOGETHER = together();

	/**
	 * The scripts a batch may carry, in their order in {@link #BATCH}: every algorithm's script and
	 * blocking script, {@link #TOGETHER}, {@link #RESET}, {@link #BLOCK_STATE} and {@link #CONCURRENCY}.
	 */
	private static final List<RedisScript<List>> BATCHED = batched();

	/**
	 * Each batched script's index in {@link #BATCH} (1-based), by identity: the limiters hold these very
	 * scripts, and {@code getSha1()} would take a lock per call.
	 */
	private static final Map<RedisScript<List>, Integer> BATCH_INDEX = batchIndex();

	/**
	 * Carries the calls of several callers in one script, each decided on its own: every script of
	 * {@link #BATCHED} as a function {@code script[i]} of its own KEYS and ARGV, then {@code batch.lua}.
	 */
	static final RedisScript<List> BATCH = batch();

	private final RedisScript<List> script;

	private final RedisScript<List> blockingScript;

	private final String keySegment;

	private static RedisScript<List> together() {
		StringBuilder script = new StringBuilder("local decide = {}\n");
		for (Algorithm algorithm : Algorithm.values()) {
			script.append("decide[").append(algorithm.ordinal() + 1).append("] = function(KEYS, ARGV)\n")
				.append(of(algorithm).script.getScriptAsString())
				.append("\nend\n");
		}
		script.append("decide[").append(CONCURRENCY_INDEX).append("] = function(KEYS, ARGV)\n")
			.append(CONCURRENCY.getScriptAsString())
			.append("\nend\n");
		return RedisScript.of(script.append(read("together")).toString(), List.class);
	}

	private static List<RedisScript<List>> batched() {
		List<RedisScript<List>> scripts = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			scripts.add(of(algorithm).script);
			scripts.add(of(algorithm).blockingScript);
		}
		scripts.addAll(List.of(TOGETHER, RESET, BLOCK_STATE, CONCURRENCY));
		return List.copyOf(scripts);
	}

	private static Map<RedisScript<List>, Integer> batchIndex() {
		Map<RedisScript<List>, Integer> index = new IdentityHashMap<>();
		for (int i = 0; i < BATCHED.size(); i++) {
			index.put(BATCHED.get(i), i + 1);
		}
		return Collections.unmodifiableMap(index);
	}

	private static RedisScript<List> batch() {
		StringBuilder script = new StringBuilder("local script = {}\n");
		for (int i = 0; i < BATCHED.size(); i++) {
			script.append("script[").append(i + 1).append("] = function(KEYS, ARGV)\n")
				.append(BATCHED.get(i).getScriptAsString())
				.append("\nend\n");
		}
		return RedisScript.of(script.append(read("batch")).toString(), List.class);
	}

	/**
	 * Returns every script a runner may send, for it to load them into a new connection's server before its first
	 * call.
	 */
	static List<RedisScript<List>> all() {
		List<RedisScript<List>> scripts = new ArrayList<>(BATCHED);
		scripts.addAll(List.of(REFUND, CHARGE, SLOT, BATCH));
		return scripts;
	}

	/**
	 * Returns a script's index in {@link #BATCH}, or 0 when a batch cannot carry it.
	 */
	static int batchIndex(RedisScript<List> script) {
		Integer index = BATCH_INDEX.get(script);
		return (index != null) ? index : 0;
	}

	private RedisScripts(String script, String keySegment) {
		this.script = RedisScript.of(script, List.class);
		this.blockingScript = RedisScript.of(
				"local decide = function(KEYS, ARGV)\n" + script + "\nend\n" + read("prelude") + read("block"), List.class);
		this.keySegment = keySegment;
	}

	private static void add(Algorithm algorithm, String file, String keySegment) {
		TABLE.put(algorithm, new RedisScripts(read("prelude") + read(file), keySegment));
	}

	static RedisScripts of(Algorithm algorithm) {
		RedisScripts scripts = TABLE.get(algorithm);
		if (scripts == null) {
			throw new IllegalStateException("No scripts for " + algorithm);
		}
		return scripts;
	}

	RedisScript<List> script() {
		return this.script;
	}

	/**
	 * Returns the script of a limiter that blocks refused keys: the algorithm's as a function, then the
	 * prelude and {@code block.lua}, which takes the block's key first and its arguments last.
	 */
	RedisScript<List> blockingScript() {
		return this.blockingScript;
	}

	String keySegment() {
		return this.keySegment;
	}

	private static String read(String name) {
		String location = LOCATION + name + ".lua";
		try (InputStream in = RedisScripts.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + location + " is missing from the class path");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + location, ex);
		}
	}

	/**
	 * Returns the arguments of a call: now (or "" for the server's time), the permits, then limit,
	 * window in µs and burst of every limit ({@link PreparedLimits.Prepared#args()}), with room for
	 * {@code more}.
	 */
	static List<String> args(@Nullable Clock clock, long permits, List<String> limitArgs, int more) {
		List<String> args = new ArrayList<>(2 + limitArgs.size() + more);
		args.add(now(clock));
		args.add((permits == 1) ? "1" : Long.toString(permits));
		args.addAll(limitArgs);
		return args;
	}

	/**
	 * Reads a script's reply, four numbers per limit, into decisions.
	 */
	static List<RateLimitDecision> decisions(@Nullable List<?> reply, List<RateLimit> limits) {
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

	static long number(List<?> reply, int index) {
		return ((Number) reply.get(index)).longValue();
	}

	/**
	 * Returns the time argument of a script: now in µs since the epoch, or "" for the server's time.
	 */
	static String now(@Nullable Clock clock) {
		return (clock != null) ? Long.toString(micros(clock.instant())) : "";
	}

	private static long micros(Instant instant) {
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
	}

}

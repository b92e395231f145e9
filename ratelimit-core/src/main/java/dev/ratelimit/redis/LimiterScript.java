package dev.ratelimit.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.RateLimit;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * How one limiter's decisions look in Redis: the algorithm's script (its blocking form on a limiter that
 * blocks refused keys), the keys a call takes and its arguments, run through the limiter's runner.
 */
final class LimiterScript {

	final Algorithm algorithm;

	final RedisKeys keys;

	final RedisScriptRunner runner;

	final @Nullable Clock clock;

	private final RedisScripts scripts;

	/** How long a refused key stays blocked; {@code null} for a limiter that blocks no key. */
	final @Nullable BlockPolicy block;

	/** The block policy's script arguments, after the limits'; empty for a limiter that blocks no key. */
	private final List<String> blockArgs;

	LimiterScript(Algorithm algorithm, String keyPrefix, RedisScriptRunner runner, @Nullable Clock clock) {
		this.algorithm = algorithm;
		this.scripts = RedisScripts.of(algorithm);
		this.keys = new RedisKeys(keyPrefix, this.scripts.keySegment());
		this.runner = runner;
		this.clock = clock;
		this.block = null;
		this.blockArgs = List.of();
	}

	/** The script of a limiter like this one that blocks refused keys: its keys always carry a hash tag. */
	private LimiterScript(LimiterScript script, BlockPolicy block) {
		this.algorithm = script.algorithm;
		this.scripts = script.scripts;
		this.keys = script.keys.blocking();
		this.runner = script.runner;
		this.clock = script.clock;
		this.block = block;
		this.blockArgs = List.of(Long.toString(micros(block.blockFor())), Double.toString(block.multiplier()),
				Long.toString(micros(block.max())));
	}

	LimiterScript blocking(BlockPolicy block) {
		return new LimiterScript(this, block);
	}

	/** Runs a decision, or a read of the state when {@code permits} is negative, and waits for its reply. */
	List<?> run(String key, List<RateLimit> limits, PreparedLimits.Prepared prepared, long permits, boolean blocks) {
		return this.runner.run(script(), keys(key, limits), args(prepared, permits, blocks));
	}

	/**
	 * Runs a decision and waits for its reply; the reply of a call that timed out goes to {@code lateReply}
	 * ({@link RedisScriptRunner#run(RedisScript, List, List, Consumer)}).
	 */
	List<?> run(String key, List<RateLimit> limits, PreparedLimits.Prepared prepared, long permits, boolean blocks,
			Consumer<List<?>> lateReply) {
		return this.runner.run(script(), keys(key, limits), args(prepared, permits, blocks), lateReply);
	}

	/** Runs a decision, or a read of the state, without holding the caller's thread. */
	CompletableFuture<List<?>> runAsync(String key, List<RateLimit> limits, PreparedLimits.Prepared prepared,
			long permits, boolean blocks) {
		return this.runner.runAsync(script(), keys(key, limits), args(prepared, permits, blocks));
	}

	/** Runs a decision without holding the caller's thread; the reply of a call that timed out goes to {@code lateReply}. */
	CompletableFuture<List<?>> runAsync(String key, List<RateLimit> limits, PreparedLimits.Prepared prepared,
			long permits, boolean blocks, Consumer<List<?>> lateReply) {
		return this.runner.runAsync(script(), keys(key, limits), args(prepared, permits, blocks), lateReply);
	}

	private RedisScript<List> script() {
		return (this.block != null) ? this.scripts.blockingScript() : this.scripts.script();
	}

	/** The keys a script call takes: a blocking limiter's start with the key's block. */
	private List<String> keys(String key, List<RateLimit> limits) {
		List<String> limitKeys = this.keys.forLimits(key, limits);
		if (this.block == null) {
			return limitKeys;
		}
		List<String> keys = new ArrayList<>(limitKeys.size() + 1);
		keys.add(this.keys.block(key));
		keys.addAll(limitKeys);
		return keys;
	}

	/**
	 * The arguments a script call takes: a blocking limiter's end with its policy's, and whether a refusal
	 * starts a block ({@code blocks}, for decisions and checks; not for reading the state).
	 */
	private List<String> args(PreparedLimits.Prepared prepared, long permits, boolean blocks) {
		if (this.block == null) {
			return RedisScripts.args(this.clock, permits, prepared.args(), 0);
		}
		List<String> args = RedisScripts.args(this.clock, permits, prepared.args(), this.blockArgs.size() + 1);
		args.addAll(this.blockArgs);
		args.add(blocks ? "1" : "0");
		return args;
	}

	/** µs of a duration no longer than {@link RateLimit#MAX_WINDOW}, as the scripts take it. */
	static long micros(Duration duration) {
		return duration.toNanos() / 1000;
	}

}

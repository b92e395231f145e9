package dev.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs a limiter's Lua script: {@code EVALSHA}, falling back to {@code EVAL} when the server does not
 * know the script yet.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RedisScriptRunner {

	/**
	 * Runs a script.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return the script's array reply; integers as {@link Long}
	 * @throws org.springframework.dao.DataAccessException when Redis fails or does not answer in time
	 */
	List<?> run(RedisScript<List> script, List<String> keys, List<String> args);

	/**
	 * Runs a script without making the caller wait for Redis. By default it runs in the calling thread
	 * and returns a completed future; runners that can wait without holding a thread, such as
	 * {@link LettuceScriptRunner}, override it.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return the script's array reply, completed exceptionally with a
	 * {@link org.springframework.dao.DataAccessException} when Redis fails or does not answer in time
	 */
	default CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args) {
		try {
			return CompletableFuture.completedFuture(run(script, keys, args));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Runs a script as {@link #run(RedisScript, List, List)} does; when the caller has been told of a timeout and
	 * Redis runs the script all the same (it was paused, or busy), the reply goes to {@code lateReply}, so that
	 * what the script did for a caller that gave up can be undone. By default the reply of a call that failed is
	 * lost, as it is for a runner that waits as long as its client; {@link LettuceScriptRunner} hands it over.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param lateReply told, at most once and on any thread, of the reply of a call that failed with a timeout
	 * @return the script's array reply; integers as {@link Long}
	 * @throws org.springframework.dao.DataAccessException when Redis fails or does not answer in time
	 * @since 0.1.0
	 */
	default List<?> run(RedisScript<List> script, List<String> keys, List<String> args, Consumer<List<?>> lateReply) {
		return run(script, keys, args);
	}

	/**
	 * Runs a script as {@link #runAsync(RedisScript, List, List)} does, handing the reply of a call that failed
	 * with a timeout to {@code lateReply} as {@link #run(RedisScript, List, List, Consumer)} does.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param lateReply told, at most once and on any thread, of the reply of a call that failed with a timeout
	 * @return the script's array reply, completed exceptionally with a
	 * {@link org.springframework.dao.DataAccessException} when Redis fails or does not answer in time
	 * @since 0.1.0
	 */
	default CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys, List<String> args,
			Consumer<List<?>> lateReply) {
		return runAsync(script, keys, args);
	}

	/**
	 * Returns whether one script may take keys of any hash slots, as on a standalone or Sentinel Redis:
	 * then the calls of one request can be decided in one script. Not on a Redis Cluster, nor when unknown.
	 * @return {@code true} when a script's keys need not share a slot
	 */
	default boolean takesKeysOfAnySlot() {
		return false;
	}

	/**
	 * Returns a runner that calls through a template, waiting as long as the template's client does.
	 * @param template the template
	 * @return the runner
	 */
	static RedisScriptRunner of(StringRedisTemplate template) {
		if (template == null) {
			throw new IllegalArgumentException("redisTemplate must not be null");
		}
		return (script, keys, args) -> template.execute(script, keys, args.toArray());
	}

}

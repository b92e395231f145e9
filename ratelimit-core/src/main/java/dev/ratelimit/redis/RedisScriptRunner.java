package dev.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

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

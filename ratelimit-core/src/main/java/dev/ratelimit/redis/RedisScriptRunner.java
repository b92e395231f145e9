package dev.ratelimit.redis;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs a limiter's Lua script: {@code EVALSHA}, falling back to {@code EVAL} when the server does not
 * know the script yet.
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

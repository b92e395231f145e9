package dev.ratelimit.benchmarks.seed;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The seed article's fixed-window limiter, as written there.
 */
public class FixedWindowRateLimiter {
	private static final String SCRIPT = """
			local current = redis.call('INCR', KEYS[1])
			if current == 1 then
			redis.call('EXPIRE', KEYS[1], ARGV[1])
			end
			return current
			""";
	private final StringRedisTemplate redisTemplate;
	private final RedisScript<Long> redisScript;
	public FixedWindowRateLimiter(StringRedisTemplate redisTemplate) {
		this.redisTemplate = redisTemplate;
		this.redisScript = RedisScript.of(SCRIPT, Long.class);
	}
	public boolean isAllowed(String clientId, int limit, int windowSeconds) {
		String key = "rate:fixed:" + clientId;
		Long current = redisTemplate.execute(
				redisScript,
				List.of(key),
				String.valueOf(windowSeconds));
		return current != null && current <= limit;
	}
}

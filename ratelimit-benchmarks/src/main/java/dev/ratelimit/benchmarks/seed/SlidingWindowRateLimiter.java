package dev.ratelimit.benchmarks.seed;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The seed article's sliding-window-log limiter, as written there.
 */
public class SlidingWindowRateLimiter {
	private static final String SCRIPT = """
			local key = KEYS[1]
			local now = tonumber(ARGV[1])
			local windowMs = tonumber(ARGV[2])
			local limit = tonumber(ARGV[3])
			redis.call('ZREMRANGEBYSCORE', key, 0, now - windowMs)
			local count = redis.call('ZCARD', key)
			if count < limit then
			redis.call('ZADD', key, now, now)
			redis.call('PEXPIRE', key, windowMs)
			return 1
			end
			return 0
			""";
	private final StringRedisTemplate redisTemplate;
	private final RedisScript<Long> redisScript;
	public SlidingWindowRateLimiter(StringRedisTemplate redisTemplate) {
		this.redisTemplate = redisTemplate;
		this.redisScript = RedisScript.of(SCRIPT, Long.class);
	}
	public boolean isAllowed(String clientId, int limit, int windowMs) {
		String key = "rate:sliding:" + clientId;
		long now = System.currentTimeMillis();
		Long result = redisTemplate.execute(
				redisScript,
				List.of(key),
				String.valueOf(now),
				String.valueOf(windowMs),
				String.valueOf(limit));
		return result != null && result == 1;
	}
}

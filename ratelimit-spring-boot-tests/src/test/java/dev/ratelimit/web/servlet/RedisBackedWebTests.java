package dev.ratelimit.web.servlet;

import org.junit.jupiter.api.BeforeEach;

import dev.ratelimit.redis.LocalDenialCache;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Base of the end-to-end tests against the test Redis: each test class has a key prefix of its own,
 * and each test starts with empty budgets.
 */
abstract class RedisBackedWebTests {

	@Value("${ratelimit.key-prefix}")
	String prefix;

	@LocalServerPort
	int port;

	@Autowired
	StringRedisTemplate redis;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitTestApplication.register(registry);
	}

	@Autowired
	ObjectProvider<LocalDenialCache> denialCache;

	@BeforeEach
	void deleteBudgets() {
		RateLimitTestApplication.deleteKeys(this.redis, this.prefix);
		// rejections this instance remembers go with the budgets
		this.denialCache.ifAvailable(LocalDenialCache::clear);
	}

}

package dev.ratelimit.web;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.testsupport.MutableClock;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A clock the test moves, at 2026-01-01T00:00:00Z, and the fixed-window limiter on it (replacing the
 * starter's), for web tests of time-dependent rules that must not sleep.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestClockConfiguration {

	@Bean
	MutableClock testClock() {
		return MutableClock.at("2026-01-01T00:00:00Z");
	}

	@Bean
	FixedWindowRateLimiter testFixedWindowRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
			MutableClock clock) {
		return new FixedWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
	}

}

package dev.ratelimit.redis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed article's test, as it stands there, with one change: it is skipped where no Docker engine
 * answers. {@link FixedWindowRateLimiterTests} runs the same scenario against the test run's Redis.
 */
@Testcontainers(disabledWithoutDocker = true)
class FixedWindowRateLimiterTest {

	@Container
	static GenericContainer<?> redis = new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);

	FixedWindowRateLimiter rateLimiter;

	LettuceConnectionFactory factory;

	@BeforeEach
	void setUp() {
		RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(redis.getHost(),
				redis.getMappedPort(6379));
		this.factory = new LettuceConnectionFactory(config);
		this.factory.afterPropertiesSet();
		StringRedisTemplate template = new StringRedisTemplate(this.factory);
		template.afterPropertiesSet();
		this.rateLimiter = new FixedWindowRateLimiter(template);
	}

	@AfterEach
	void tearDown() {
		this.factory.destroy();
	}

	@Test
	void shouldBlockRequestsExceedingLimit() {
		String clientId = "client-A";
		int limit = 3;

		boolean r1 = this.rateLimiter.isAllowed(clientId, limit, 60);
		boolean r2 = this.rateLimiter.isAllowed(clientId, limit, 60);
		boolean r3 = this.rateLimiter.isAllowed(clientId, limit, 60);
		boolean r4 = this.rateLimiter.isAllowed(clientId, limit, 60);

		assertThat(r1).isTrue();
		assertThat(r2).isTrue();
		assertThat(r3).isTrue();
		assertThat(r4).isFalse();
	}

}

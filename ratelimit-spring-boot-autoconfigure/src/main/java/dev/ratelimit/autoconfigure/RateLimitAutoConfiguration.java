package dev.ratelimit.autoconfigure;

import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.RedisKeys;
import dev.ratelimit.redis.SlidingWindowCounterRateLimiter;
import dev.ratelimit.redis.SlidingWindowRateLimiter;
import dev.ratelimit.redis.TokenBucketRateLimiter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Registers a Redis rate limiter bean per algorithm when a {@link RedisConnectionFactory} is present.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(RedisConnectionFactory.class)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FixedWindowRateLimiter fixedWindowRateLimiter(RedisConnectionFactory connectionFactory,
			ObjectProvider<StringRedisTemplate> templates, RateLimitProperties properties) {
		return new FixedWindowRateLimiter(template(connectionFactory, templates), keyPrefix(properties), null);
	}

	@Bean
	@ConditionalOnMissingBean
	SlidingWindowRateLimiter slidingWindowRateLimiter(RedisConnectionFactory connectionFactory,
			ObjectProvider<StringRedisTemplate> templates, RateLimitProperties properties) {
		return new SlidingWindowRateLimiter(template(connectionFactory, templates), keyPrefix(properties), null);
	}

	@Bean
	@ConditionalOnMissingBean
	SlidingWindowCounterRateLimiter slidingWindowCounterRateLimiter(RedisConnectionFactory connectionFactory,
			ObjectProvider<StringRedisTemplate> templates, RateLimitProperties properties) {
		return new SlidingWindowCounterRateLimiter(template(connectionFactory, templates), keyPrefix(properties), null);
	}

	@Bean
	@ConditionalOnMissingBean
	TokenBucketRateLimiter tokenBucketRateLimiter(RedisConnectionFactory connectionFactory,
			ObjectProvider<StringRedisTemplate> templates, RateLimitProperties properties) {
		return new TokenBucketRateLimiter(template(connectionFactory, templates), keyPrefix(properties), null);
	}

	@Bean
	@ConditionalOnMissingBean
	GcraRateLimiter gcraRateLimiter(RedisConnectionFactory connectionFactory,
			ObjectProvider<StringRedisTemplate> templates, RateLimitProperties properties) {
		return new GcraRateLimiter(template(connectionFactory, templates), keyPrefix(properties), null);
	}

	private static StringRedisTemplate template(RedisConnectionFactory connectionFactory,
			ObjectProvider<StringRedisTemplate> templates) {
		return templates.getIfUnique(() -> new StringRedisTemplate(connectionFactory));
	}

	private static String keyPrefix(RateLimitProperties properties) {
		return PropertyErrors.check("ratelimit.key-prefix", properties.getKeyPrefix(),
				RedisKeys::checkPrefix);
	}

}

package dev.ratelimit.test;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.LocalDenialCache;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The beans of {@link AutoConfigureRateLimit}: the budgets a test resets, created when first asked for, so that a
 * test that turns ratelimit off ({@code ratelimit.enabled=false}) still starts.
 */
@Configuration(proxyBeanMethods = false)
class RateLimitTestConfiguration {

	@Bean
	@Lazy
	RateLimitBudgets rateLimitBudgets(RedisConnectionFactory connectionFactory, RateLimitProperties properties,
			ObjectProvider<LocalDenialCache> denialCache) {
		return new RateLimitBudgets(connectionFactory, properties.getKeyPrefix(), denialCache.getIfUnique());
	}

}

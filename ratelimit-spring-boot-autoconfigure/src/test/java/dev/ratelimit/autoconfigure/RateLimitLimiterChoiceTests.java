package dev.ratelimit.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link RateLimiter} bean the application declares for an algorithm decides that algorithm's rules
 * instead of the starter's, whatever the order in which the beans are registered or ordered.
 */
class RateLimitLimiterChoiceTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withPropertyValues("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=5",
				"ratelimit.rules.api.window=1m", "ratelimit.rules.slow.paths=/slow/**",
				"ratelimit.rules.slow.limit=5", "ratelimit.rules.slow.window=1m", "ratelimit.rules.slow.algorithm=gcra");

	@Test
	void usesTheApplicationsLimiterRegisteredBeforeTheStarters() {
		this.runner.withUserConfiguration(ApplicationLimiter.class)
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class))
			.run((context) -> {
				RateLimitRuleRegistry rules = context.getBean(RateLimitRuleRegistry.class);
				assertThat(rules.limiter(rules.find("api"))).isSameAs(context.getBean("applicationLimiter"));
				// the starter's own limiter decides the other algorithms
				assertThat(rules.limiter(rules.find("slow"))).isInstanceOf(RedisRateLimiter.class)
					.extracting(RateLimiter::algorithm)
					.isEqualTo(Algorithm.GCRA);
				assertThat(context).hasSingleBean(GcraRateLimiter.class);
				// the starter's typed limiter is still there for injection by type
				assertThat(context).hasSingleBean(FixedWindowRateLimiter.class);
			});
	}

	@Test
	void usesTheApplicationsLimiterRegisteredAfterAndOrderedBehindTheStarters() {
		// registered after the starter's limiters and ordered last: bean order alone would pick the starter's
		this.runner
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					LateApplicationLimiter.class, RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class))
			.run((context) -> {
				RateLimitRuleRegistry rules = context.getBean(RateLimitRuleRegistry.class);
				assertThat(rules.limiter(rules.find("api"))).isSameAs(context.getBean("lateLimiter"));
				assertThat(rules.limiter(rules.find("slow"))).isInstanceOf(RedisRateLimiter.class)
					.extracting(RateLimiter::algorithm)
					.isEqualTo(Algorithm.GCRA);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationLimiter {

		@Bean
		RateLimiter applicationLimiter() {
			return new AlwaysAllows();
		}

	}

	@AutoConfiguration(after = RateLimitAutoConfiguration.class, before = RateLimitWebAutoConfiguration.class)
	static class LateApplicationLimiter {

		@Bean
		@Order(Ordered.LOWEST_PRECEDENCE)
		RateLimiter lateLimiter() {
			return new AlwaysAllows();
		}

	}

	static final class AlwaysAllows implements RateLimiter {

		@Override
		public List<RateLimitDecision> tryAcquire(String key, List<RateLimit> limits, long permits) {
			return limits.stream().map((limit) -> RateLimitDecision.allowed(limit.limit(), limit.limit(), limit.window()))
				.toList();
		}

		@Override
		public Algorithm algorithm() {
			return Algorithm.FIXED_WINDOW;
		}

	}

}

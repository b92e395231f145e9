package dev.ratelimit.test;

import dev.ratelimit.RateLimiter;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test class that turns ratelimit off keeps {@code @AutoConfigureRateLimit} (from a base class, say): its context
 * starts, and there is no budget to reset before its tests.
 */
@SpringBootTest(classes = RateLimitTurnedOffTests.Application.class, properties = "ratelimit.enabled=false")
@AutoConfigureRateLimit
class RateLimitTurnedOffTests {

	@Autowired
	private ApplicationContext context;

	@Test
	void startsWithoutLimitersAndResetsNothing() {
		assertThat(this.context.getBeansOfType(RateLimiter.class)).isEmpty();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}

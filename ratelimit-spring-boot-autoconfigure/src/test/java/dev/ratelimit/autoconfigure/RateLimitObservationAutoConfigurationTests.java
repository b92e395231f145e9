package dev.ratelimit.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import dev.ratelimit.rules.internal.RateLimitEngine;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitObservationAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitObservationAutoConfiguration.class, RateLimitWebAutoConfiguration.class));

	@Test
	void observesDecisionsWhenTheApplicationHasAnObservationRegistry() {
		this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create).run((context) -> {
			assertThat(context).hasBean("rateLimitObservationObserver");
			assertThat(context.getBean(RateLimitEngine.class)).extracting("enforcer.observation.observer")
				.isSameAs(context.getBean("rateLimitObservationObserver"));
		});
	}

	@Test
	void observesNothingWithoutARegistryOrWhenDisabled() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean("rateLimitObservationObserver"));
		this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("rateLimitObservationObserver"));
		this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean("rateLimitObservationObserver"));
	}

}

package dev.ratelimit.autoconfigure;

import io.micrometer.observation.ObservationRegistry;

import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.rules.internal.RateLimitEngine;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Makes each rate-limit decision an observation, {@code ratelimit.decision}, when the application has an
 * {@link ObservationRegistry}: the decision and its Redis round trip show in traces next to the request.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = RateLimitWebAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
public final class RateLimitObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitObservationObserver")
	RateLimitObserver rateLimitObservationObserver(ObservationRegistry registry) {
		return RateLimitEngine.observationObserver(registry);
	}

}

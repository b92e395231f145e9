package dev.ratelimit.autoconfigure.openapi;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.rules.internal.RateLimitEngine;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Tells the limits in springdoc's OpenAPI document (Spring MVC and WebFlux): each operation a rule from properties
 * (by path and method) or a {@code @RateLimited} handler limits gets its 429 response, its rate-limit headers and
 * a description of its policies; off with {@code ratelimit.openapi.enabled=false}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class)
@ConditionalOnClass(GlobalOpenApiCustomizer.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "ratelimit.openapi.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimitRuleRegistry.class)
@EnableConfigurationProperties(RateLimitOpenApiProperties.class)
public final class RateLimitOpenApiAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitOpenApiCustomizer rateLimitOpenApiCustomizer(RateLimitRuleRegistry rules, RateLimitProperties properties,
			RateLimitRejectionHandler rejections) {
		RateLimitProperties.Headers headers = properties.getHeaders();
		// an application's own handler answers with a body of its own, which the document cannot know
		boolean problemDetails = rejections.getClass() == RateLimitEngine.problemDetails().getClass();
		return new RateLimitOpenApiCustomizer(rules, new LimitedOperations(headers.getVersion(), headers.isEnabled(),
				headers.isLegacy(), properties.getFailureMode(), problemDetails));
	}

}

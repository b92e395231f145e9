package dev.ratelimit.test;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Customizes the context of a test class annotated with {@link AutoConfigureRateLimit} (or enclosed in one);
 * registered in {@code META-INF/spring.factories}.
 */
final class RateLimitTestContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		AutoConfigureRateLimit annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass,
				AutoConfigureRateLimit.class);
		return (annotation != null) ? new RateLimitTestContextCustomizer(annotation.clock()) : null;
	}

}

package dev.ratelimit.autoconfigure;

import dev.ratelimit.actuate.RateLimitEndpointConfiguration;
import dev.ratelimit.autoconfigure.actuate.RateLimitEndpointAutoConfiguration;
import dev.ratelimit.autoconfigure.openapi.RateLimitOpenApiAutoConfiguration;
import dev.ratelimit.autoconfigure.webflux.RateLimitWebFluxAutoConfiguration;
import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every bean the starter registers backs off when the application declares its own.
 */
class AutoConfigurationBackOffTests {

	@Test
	void everyBeanMethodBacksOffForTheApplicationsOwn() {
		List<Class<?>> configurations = List.of(RateLimitAutoConfiguration.class,
				RateLimitAutoConfiguration.LettuceRunnerConfiguration.class, RateLimitWebAutoConfiguration.class,
				RateLimitWebMvcAutoConfiguration.class, RateLimitWebFluxAutoConfiguration.class,
				RateLimitWebAutoConfiguration.EnvironmentChangeConfiguration.class, RateLimitMetricsAutoConfiguration.class,
				RateLimitMetricsAutoConfiguration.DecisionMetricsConfiguration.class,
				RateLimitEndpointAutoConfiguration.class, RateLimitEndpointConfiguration.class,
				RateLimitObservationAutoConfiguration.class, RateLimitOpenApiAutoConfiguration.class);
		List<String> beanMethods = new ArrayList<>();
		List<String> without = new ArrayList<>();
		for (Class<?> configuration : configurations) {
			for (Method method : configuration.getDeclaredMethods()) {
				if (method.isAnnotationPresent(Bean.class)) {
					beanMethods.add(method.getName());
					if (!method.isAnnotationPresent(ConditionalOnMissingBean.class)) {
						without.add(configuration.getSimpleName() + "." + method.getName());
					}
				}
			}
		}
		assertThat(beanMethods).hasSizeGreaterThan(15);
		assertThat(without).isEmpty();
	}

}

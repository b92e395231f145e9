package dev.ratelimit.test;

import java.util.Map;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.util.Assert;

/**
 * Points the test's application at the Redis of the test run ({@link RedisTestServer#shared()}: found or started
 * once per JVM) ahead of its own configuration, and registers the beans of {@link AutoConfigureRateLimit}. A record:
 * two test classes with the same settings share one cached context.
 * @param clock whether to register the test clock and the limiters that read it
 */
record RateLimitTestContextCustomizer(boolean clock) implements ContextCustomizer {

	/** The name of the property source that points {@code spring.data.redis.url} at the test's Redis. */
	static final String PROPERTY_SOURCE = "ratelimitTestRedis";

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		RedisTestServer server = RedisTestServer.shared();
		// first, as @DynamicPropertySource and @ServiceConnection are: ahead of application.properties
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource(PROPERTY_SOURCE, Map.of("spring.data.redis.url", server.url())));
		Assert.state(context instanceof BeanDefinitionRegistry,
				() -> "@AutoConfigureRateLimit needs a context that registers bean definitions, not " + context);
		BeanDefinitionRegistry registry = (BeanDefinitionRegistry) context;
		register(registry, RateLimitTestConfiguration.class);
		if (this.clock) {
			// registered ahead of the auto-configurations, so that the starter's limiters back off for these
			register(registry, ClockedLimitersConfiguration.class);
		}
	}

	private static void register(BeanDefinitionRegistry registry, Class<?> configuration) {
		registry.registerBeanDefinition(configuration.getName(), new RootBeanDefinition(configuration));
	}

}

package dev.ratelimit.gateway;

import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.rules.KeyResolvers;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.RateLimitRuleFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.config.conditional.ConditionalOnEnabledFilter;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;

/**
 * Makes ratelimit's {@link GatewayRateLimiter} the rate limiter of Spring Cloud Gateway's
 * {@code RequestRateLimiter} filter when the starter's Redis limiters are configured, deciding with the
 * {@link RateLimitFlow} of every web stack. Runs before the gateway's own auto-configurations, so that the
 * filter finds it, and removes the {@code RedisRateLimiter} that Spring Cloud Gateway would register beside it:
 * that bean backs off only for a bean of its own class. A rate limiter of the application's own replaces this one.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitWebAutoConfiguration.class },
		beforeName = { "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration",
				"org.springframework.cloud.gateway.config.GatewayAutoConfiguration" })
@ConditionalOnClass({ org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.class,
		RequestRateLimiterGatewayFilterFactory.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = GatewayProperties.PREFIX + ".enabled", matchIfMissing = true)
@ConditionalOnBean({ RedisScriptRunner.class, RateLimitFlow.class })
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitGatewayAutoConfiguration {

	static final String LIMITER_BEAN_NAME = "ratelimitGatewayRateLimiter";

	@Bean(LIMITER_BEAN_NAME)
	@ConditionalOnMissingBean(org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.class)
	@ConditionalOnEnabledFilter(RequestRateLimiterGatewayFilterFactory.class)
	GatewayRateLimiter ratelimitGatewayRateLimiter(RateLimitFlow flow, RateLimitProperties properties,
			ObjectProvider<GatewayProperties> gateway, Environment environment, ListableBeanFactory beanFactory) {
		// a route's plans come from a RateLimitPlanResolver bean (ratelimit.plan=bean:<name>)
		GatewayRateLimiter limiter = new GatewayRateLimiter(flow,
				new RateLimitRuleFactory(properties.getDefaultAlgorithm(), NoKeyResolvers.INSTANCE,
						properties.isShadow(), (name) -> beanFactory.containsBean(name)
								&& beanFactory.isTypeMatch(name, RateLimitPlanResolver.class)),
				emptyKeys(environment));
		gateway.ifAvailable(limiter::checkRoutes);
		return limiter;
	}

	/**
	 * Reads what the {@code RequestRateLimiter} filter does with empty keys from its properties (its own bean
	 * needs this limiter, so cannot be asked).
	 */
	private static GatewayRateLimiter.EmptyKeys emptyKeys(Environment environment) {
		Binder binder = Binder.get(environment);
		String prefix = GatewayProperties.PREFIX + ".filter.request-rate-limiter.";
		String status = binder.bind(prefix + "empty-key-status-code", String.class).orElse(HttpStatus.FORBIDDEN.name());
		try {
			return GatewayRateLimiter.EmptyKeys.of(binder.bind(prefix + "deny-empty-key", Boolean.class).orElse(true),
					status);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(prefix + "empty-key-status-code", status,
					"use an HTTP status name such as FORBIDDEN or a number such as 403");
		}
	}

	/**
	 * Gives back the slots of requests in flight of routes with {@code ratelimit.concurrency} when their exchanges
	 * complete.
	 * @param flow the flow
	 * @return the filter
	 */
	@Bean
	@ConditionalOnBean(GatewayRateLimiter.class)
	RouteSettlementFilter ratelimitRouteSettlementFilter(RateLimitFlow flow) {
		return new RouteSettlementFilter(flow);
	}

	@Bean
	static RedisRateLimiterBackOff ratelimitGatewayRedisRateLimiterBackOff() {
		return new RedisRateLimiterBackOff();
	}

	/**
	 * Removes Spring Cloud Gateway's {@code RedisRateLimiter} bean when ratelimit's is registered: declared with
	 * {@code @ConditionalOnMissingBean} on its own class, it would otherwise stand beside ours, and the
	 * {@code RequestRateLimiter} filter, which takes the one {@code RateLimiter} bean, would find two.
	 */
	static final class RedisRateLimiterBackOff implements BeanDefinitionRegistryPostProcessor {

		static final String GATEWAY_REDIS_CONFIGURATION = "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration";

		@Override
		public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
			if (!registry.containsBeanDefinition(LIMITER_BEAN_NAME)) {
				return;
			}
			for (String name : registry.getBeanDefinitionNames()) {
				BeanDefinition definition = registry.getBeanDefinition(name);
				if (GATEWAY_REDIS_CONFIGURATION.equals(definition.getFactoryBeanName())
						&& "redisRateLimiter".equals(definition.getFactoryMethodName())) {
					registry.removeBeanDefinition(name);
				}
			}
		}

		@Override
		public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		}

	}

	/**
	 * A route's key comes from its {@code KeyResolver}: no {@code bean:} key names a bean here.
	 */
	enum NoKeyResolvers implements KeyResolvers {

		INSTANCE;

		@Override
		public boolean exists(String name) {
			return false;
		}

		@Override
		public String type() {
			return org.springframework.cloud.gateway.filter.ratelimit.KeyResolver.class.getName();
		}

	}

}

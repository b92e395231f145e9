package dev.ratelimit.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.KeyResolvers;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.rules.flow.RateLimitPlanCache;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.rules.internal.RateLimitEngine;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.Assert;

/**
 * Registers what every entry point shares (the web stacks and, in any application, {@link dev.ratelimit.RateLimited}
 * bean methods): the rule engine, built by {@link RateLimitEngine#builder} from {@code ratelimit.*} (the rules of
 * {@code ratelimit.rules.*} with the limiter of each algorithm, the address lists, the failure mode, the plan cache,
 * the rate-limit headers), and its parts by their SPI types: the {@link RateLimitRuleRegistry} of every rule in force,
 * the {@link RateLimitPlanCache} and the {@link RateLimitFlow}; beside it the client-address resolver and the
 * {@link RateLimitRejectionHandler}. The rule model needs spring-web, which the starter brings.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class })
@ConditionalOnClass(name = "org.springframework.web.util.pattern.PathPattern")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@Import(RateLimitPropertiesConfiguration.class)
public final class RateLimitWebAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ClientAddressResolver rateLimitClientAddressResolver(RateLimitProperties properties) {
		int prefix = properties.getIpv6PrefixLength();
		if (prefix < 1 || prefix > 128) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.ipv6-prefix-length", prefix,
					"use 1 to 128: 56 (the default) or 64 gives a customer's network one budget, 128 each address");
		}
		return RateLimitEngine.trustedProxies(
				PropertyRules.blocks("ratelimit.trusted-proxies", properties.getTrustedProxies()),
				properties.getForwardedHeader(), prefix);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRejectionHandler rateLimitRejectionHandler() {
		return RateLimitEngine.problemDetails();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRuleFactory rateLimitRuleFactory(RateLimitProperties properties, ObjectProvider<RateLimitStack> stacks,
			ConfigurableListableBeanFactory beanFactory) {
		return ruleFactory(properties, beanFactory, stacks.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitEngine rateLimitEngine(RateLimitProperties properties, RateLimitRuleFactory factory,
			ObjectProvider<RateLimiter> limiters, ObjectProvider<RateLimitAutoConfiguration.Limiters> starterParts,
			ObjectProvider<LocalRateLimiter> local, ObjectProvider<RateLimitObserver> observers,
			ObjectProvider<Clock> clock, ClientAddressResolver addresses, ObjectProvider<RateLimitStack> stackBeans,
			ObjectProvider<RateLimitOverrides> overrides,
			ConfigurableListableBeanFactory beanFactory) {
		List<RateLimitStack> stacks = stackBeans.orderedStream().toList();
		try {
			// an application that serves no calls the rules apply to (no stack said it does) leaves them out
			List<RateLimitRule> pathRules = !stacks.isEmpty() ? PropertyRules.of(properties, factory,
					planResolvers(beanFactory)::exists, conditions(beanFactory, stacks)) : pathRulesLeftOut(properties);
			RateLimitEngine.Builder engine = RateLimitEngine.builder(factory)
				.pathRules(pathRules)
				.limiters(limiters(limiters, starterParts.getIfAvailable(), beanFactory))
				.addressLists(PropertyRules.allowed(properties), PropertyRules.denied(properties))
				.failureMode(properties.getFailureMode(), local.getIfAvailable())
				.observer(RateLimitObserver.composite(observers.orderedStream().toList()))
				// the application's clock, when it has one, tells the periods of calendar quotas
				.clock(clock.getIfUnique(Clock::systemUTC))
				.overrides(overrides.getIfUnique(() -> RateLimitOverrides.NONE))
				.addresses(addresses)
				.headers(properties.getHeaders().isEnabled(), properties.getHeaders().isLegacy())
				.headerVersion(properties.getHeaders().getVersion(), properties.getHeaders().getPartitionKeySecret());
			planCache(engine, properties, beanFactory);
			return engine.build();
		}
		catch (InvalidRateLimitRuleException ex) {
			throw PropertyRules.invalidProperty(ex);
		}
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRuleRegistry rateLimitRules(RateLimitEngine engine) {
		return engine.rules();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitPlanCache rateLimitPlans(RateLimitEngine engine) {
		return engine.plans();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitFlow rateLimitFlow(RateLimitEngine engine) {
		return engine.flow();
	}

	/**
	 * Sets the plan resolvers of {@code plan=bean:<name>} and how long their answers are remembered.
	 */
	private static void planCache(RateLimitEngine.Builder engine, RateLimitProperties properties,
			ListableBeanFactory beanFactory) {
		RateLimitProperties.PlanCache cache = properties.getPlanCache();
		Duration ttl = PropertyErrors.check("ratelimit.plan-cache.ttl", cache.getTtl(), (value) -> {
			Assert.isTrue(!value.isNegative() && !value.isZero(), "the plan cache's ttl must be positive");
			return value;
		});
		PropertyErrors.check("ratelimit.plan-cache.max-keys", cache.getMaxKeys(),
				(maxKeys) -> engine.planResolvers((name) -> beanFactory.getBean(name, RateLimitPlanResolver.class), ttl,
						maxKeys));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnWebApplication
	RateLimitRulesReload rateLimitRulesReload(RateLimitRuleRegistry rules, RateLimitPlanCache plans,
			ConfigurableEnvironment environment, ConfigurableListableBeanFactory beanFactory,
			ObjectProvider<RateLimitStack> stackBeans) {
		List<RateLimitStack> stacks = stackBeans.orderedStream().toList();
		return new RateLimitRulesReload(rules, plans, environment,
				(properties) -> ruleFactory(properties, beanFactory, stacks), planResolvers(beanFactory)::exists,
				conditions(beanFactory, stacks));
	}

	/**
	 * Builds the rules of an application: their key-resolver beans are those of its web stack, as the stack's
	 * auto-configuration says ({@link RateLimitStack}); an application that serves no web requests has none.
	 */
	static RateLimitRuleFactory ruleFactory(RateLimitProperties properties, ConfigurableListableBeanFactory beanFactory,
			List<RateLimitStack> stacks) {
		return new RateLimitRuleFactory(properties.getDefaultAlgorithm(),
				stackBeans(beanFactory, stacks, "RateLimitKeyResolver"), properties.isShadow(),
				planResolvers(beanFactory)::exists);
	}

	/**
	 * The rules of {@code ratelimit.rules.*} apply to web requests and gRPC calls: an application that serves none
	 * (a worker that shares the web application's configuration) leaves them out, and says so, rather than failing
	 * on their key resolvers or conditions.
	 */
	private static List<RateLimitRule> pathRulesLeftOut(RateLimitProperties properties) {
		if (!properties.getRules().isEmpty()) {
			LogFactory.getLog(RateLimitWebAutoConfiguration.class).info("This application serves no web requests: the "
					+ properties.getRules().size() + " rules of ratelimit.rules.* (" + String.join(", ",
							properties.getRules().keySet()) + ") apply to none; @RateLimited bean methods are limited");
		}
		return List.of();
	}

	/**
	 * The condition beans of the application's web stack.
	 */
	private static KeyResolvers conditions(ConfigurableListableBeanFactory beanFactory, List<RateLimitStack> stacks) {
		return stackBeans(beanFactory, stacks, "RateLimitCondition");
	}

	/**
	 * The beans of the application's web stack of a kind ({@code RateLimitKeyResolver} or {@code RateLimitCondition}),
	 * or none outside a web application.
	 */
	private static KeyResolvers stackBeans(ConfigurableListableBeanFactory beanFactory, List<RateLimitStack> stacks,
			String kind) {
		for (RateLimitStack stack : stacks) {
			Class<?> type = kind.equals("RateLimitCondition") ? stack.conditionType() : stack.keyResolverType();
			if (type != null) {
				return new BeanKeyResolvers(beanFactory, type);
			}
		}
		return new NoWebStack(kind);
	}

	/**
	 * The key resolvers and conditions of an application that serves no web requests: there are none.
	 */
	record NoWebStack(String type) implements KeyResolvers {

		@Override
		public boolean exists(String name) {
			return false;
		}

		@Override
		public String type() {
			return "a web stack's " + this.type + " (this application serves no web requests)";
		}

	}

	private static BeanKeyResolvers planResolvers(ConfigurableListableBeanFactory beanFactory) {
		return new BeanKeyResolvers(beanFactory, RateLimitPlanResolver.class);
	}

	/**
	 * Reloads the rules when Spring Cloud says that the environment changed.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
	@ConditionalOnWebApplication
	static class EnvironmentChangeConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitEnvironmentChangeListener rateLimitEnvironmentChangeListener(RateLimitRulesReload reload) {
			return new RateLimitEnvironmentChangeListener(reload);
		}

	}

	/**
	 * Returns the limiter of each algorithm: a {@link RateLimiter} bean the application declares always
	 * replaces the starter's for its algorithm, whatever the order of the beans; the starter's own
	 * limiters decide the others, without the fallback its beans carry for direct callers.
	 */
	static Map<Algorithm, RateLimiter> limiters(ObjectProvider<RateLimiter> limiters,
			RateLimitAutoConfiguration.@Nullable Limiters starterParts, ConfigurableListableBeanFactory beanFactory) {
		Set<Object> starters = Collections.newSetFromMap(new IdentityHashMap<>());
		for (String name : beanFactory.getBeanNamesForType(RateLimiter.class)) {
			if (beanFactory.containsBeanDefinition(name) && RateLimitAutoConfiguration.class.getName()
				.equals(beanFactory.getMergedBeanDefinition(name).getFactoryBeanName())) {
				starters.add(beanFactory.getBean(name));
			}
		}
		Map<Algorithm, RateLimiter> chosen = new EnumMap<>(Algorithm.class);
		limiters.orderedStream()
			.filter((limiter) -> !starters.contains(limiter))
			.forEach((limiter) -> chosen.putIfAbsent(limiter.algorithm(), limiter));
		if (starterParts != null) {
			for (Algorithm algorithm : Algorithm.values()) {
				chosen.computeIfAbsent(algorithm, starterParts::forRules);
			}
		}
		return chosen;
	}

	/**
	 * The key-resolver beans of one web stack's type.
	 */
	record BeanKeyResolvers(ConfigurableListableBeanFactory beanFactory, Class<?> resolverType)
			implements KeyResolvers {

		@Override
		public boolean exists(String name) {
			return this.beanFactory.containsBean(name) && this.beanFactory.isTypeMatch(name, this.resolverType);
		}

		@Override
		public String type() {
			return this.resolverType.getName();
		}

	}

}

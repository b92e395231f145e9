package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.web.servlet.CidrBlock;
import dev.ratelimit.web.servlet.ClientAddressResolver;
import dev.ratelimit.web.servlet.InvalidRateLimitRuleException;
import dev.ratelimit.web.servlet.RateLimitInterceptor;
import dev.ratelimit.web.servlet.RateLimitKeyResolver;
import dev.ratelimit.web.servlet.RateLimitObserver;
import dev.ratelimit.web.servlet.RateLimitResponseWriter;
import dev.ratelimit.web.servlet.RateLimitRule;
import dev.ratelimit.web.servlet.RateLimitRuleFactory;
import dev.ratelimit.web.servlet.RateLimitRuleFactory.LimitDefinition;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Registers the {@link RateLimitInterceptor} in Spring MVC servlet applications, with the rules of
 * {@code ratelimit.rules.*} and of {@link dev.ratelimit.RateLimited} handlers.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass({ HandlerInterceptor.class, WebMvcConfigurer.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitWebMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ClientAddressResolver rateLimitClientAddressResolver(RateLimitProperties properties) {
		List<CidrBlock> blocks = new ArrayList<>();
		List<String> proxies = properties.getTrustedProxies();
		for (int i = 0; i < proxies.size(); i++) {
			blocks.add(PropertyErrors.check("ratelimit.trusted-proxies[" + i + "]", proxies.get(i), CidrBlock::parse));
		}
		return new ClientAddressResolver(blocks, properties.getForwardedHeader());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitInterceptor rateLimitInterceptor(RateLimitProperties properties, ClientAddressResolver addresses,
			ObjectProvider<RateLimiter> limiters, ObjectProvider<RateLimitObserver> observers,
			ListableBeanFactory beanFactory) {
		RateLimitRuleFactory factory = new RateLimitRuleFactory(addresses, properties.getDefaultAlgorithm(),
				(name) -> beanFactory.containsBean(name) && beanFactory.isTypeMatch(name, RateLimitKeyResolver.class)
						? beanFactory.getBean(name, RateLimitKeyResolver.class) : null,
				properties.isShadow());
		List<RateLimitRule> rules = new ArrayList<>();
		for (Map.Entry<String, RateLimitProperties.Rule> entry : properties.getRules().entrySet()) {
			rules.add(rule(factory, entry.getKey(), entry.getValue()));
		}
		try {
			return new RateLimitInterceptor(rules, factory, limiters.orderedStream().toList(), addresses,
					new RateLimitResponseWriter(properties.getHeaders().isEnabled(), properties.getHeaders().isLegacy()),
					properties.getFailureMode(), RateLimitObserver.composite(observers.orderedStream().toList()));
		}
		catch (InvalidRateLimitRuleException ex) {
			throw invalidProperty(ex);
		}
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebMvcConfigurer rateLimitWebMvcConfigurer(RateLimitInterceptor interceptor,
			ListableBeanFactory beanFactory) {
		return new RateLimitWebMvcConfigurer(interceptor, beanFactory);
	}

	private static RateLimitRule rule(RateLimitRuleFactory factory, String name, RateLimitProperties.Rule rule) {
		List<LimitDefinition> limits = new ArrayList<>();
		if (rule.getLimits().isEmpty()) {
			limits.add(new LimitDefinition("", rule.getLimit(), rule.getWindow(), rule.getBurst()));
		}
		else if (rule.getLimit() != null || rule.getWindow() != null || rule.getBurst() != null) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.rules." + name + ".limits",
					rule.getLimits().size() + " limits",
					"give either limit, window and burst, or limits[*], not both; move the short form into limits");
		}
		for (int i = 0; i < rule.getLimits().size(); i++) {
			RateLimitProperties.Limit limit = rule.getLimits().get(i);
			limits.add(new LimitDefinition("limits[" + i + "].", limit.getLimit(), limit.getWindow(), limit.getBurst()));
		}
		try {
			return factory.create(name, rule.getPaths(), rule.getMethods(), limits, rule.getAlgorithm(), rule.getKey(),
					rule.getCost(), rule.getShadow());
		}
		catch (InvalidRateLimitRuleException ex) {
			throw invalidProperty(ex);
		}
	}

	private static InvalidConfigurationPropertyValueException invalidProperty(InvalidRateLimitRuleException ex) {
		String attribute = ex.getAttribute().equals("name") ? "" : "." + ex.getAttribute();
		return new InvalidConfigurationPropertyValueException("ratelimit.rules." + ex.getRule() + attribute,
				ex.getValue(), ex.getReason());
	}

}

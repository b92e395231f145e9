package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.KeyResolvers;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.flow.RateLimitPlanCache;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Reads {@code ratelimit.*} again from the environment and replaces the rules from properties and the
 * allow and deny lists, checked as at startup: for {@code POST /actuator/ratelimit/reload} and Spring
 * Cloud's {@code EnvironmentChangeEvent}. Invalid properties are refused with the startup messages and
 * the rules in force stay. Budgets carry over. The other properties (failure mode, timeout, key
 * prefix, caches) take effect at the next start.
 *
 * @since 0.1.0
 */
public final class RateLimitRulesReload {

	private static final Log logger = LogFactory.getLog(RateLimitRulesReload.class);

	private final RateLimitRuleRegistry rules;

	private final RateLimitPlanCache plans;

	private final ConfigurableEnvironment environment;

	private final Function<RateLimitProperties, RateLimitRuleFactory> factories;

	private final Predicate<String> planResolverExists;

	private final KeyResolvers conditions;

	RateLimitRulesReload(RateLimitRuleRegistry rules, RateLimitPlanCache plans, ConfigurableEnvironment environment,
			Function<RateLimitProperties, RateLimitRuleFactory> factories, Predicate<String> planResolverExists,
			KeyResolvers conditions) {
		this.conditions = conditions;
		this.rules = rules;
		this.plans = plans;
		this.environment = environment;
		this.factories = factories;
		this.planResolverExists = planResolverExists;
	}

	/**
	 * Replaces the rules with those the environment holds now.
	 * @return the names of the rules from properties now in force
	 * @throws RuntimeException when the properties are invalid (an
	 * {@link org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException}
	 * or a binding error naming the property); the rules in force stay
	 */
	public synchronized List<String> reload() {
		RateLimitProperties properties = PropertyParts.bind(Binder.get(this.environment));
		RateLimitRuleFactory factory = this.factories.apply(properties);
		List<RateLimitRule> pathRules = PropertyRules.of(properties, factory, this.planResolverExists,
				this.conditions);
		List<CidrBlock> allow = PropertyRules.allowed(properties);
		List<CidrBlock> deny = PropertyRules.denied(properties);
		try {
			this.rules.replace(pathRules, allow, deny);
		}
		catch (InvalidRateLimitRuleException ex) {
			throw PropertyRules.invalidProperty(ex);
		}
		// the plans may have changed with the rules: each key's plan is asked again
		this.plans.clear();
		List<String> names = pathRules.stream().map(RateLimitRule::name).toList();
		logger.info("Reloaded the rate-limit rules from the environment: " + names);
		return names;
	}

}

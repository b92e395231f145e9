package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.ratelimit.rules.internal.AddressLists;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.KeyResolvers;
import dev.ratelimit.rules.internal.RateLimitPlans;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.internal.RateLimitRules;

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

	private final RateLimitRules rules;

	private final RateLimitPlans plans;

	private final ConfigurableEnvironment environment;

	private final Function<RateLimitProperties, RateLimitRuleFactory> factories;

	private final Predicate<String> planResolverExists;

	private final KeyResolvers conditions;

	RateLimitRulesReload(RateLimitRules rules, RateLimitPlans plans, ConfigurableEnvironment environment,
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
		AddressLists addressLists = PropertyRules.addressLists(properties);
		try {
			this.rules.replace(pathRules, addressLists);
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

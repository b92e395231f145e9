package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import dev.ratelimit.web.AddressLists;
import dev.ratelimit.web.CidrBlock;
import dev.ratelimit.web.InvalidRateLimitRuleException;
import dev.ratelimit.web.RateLimitRule;
import dev.ratelimit.web.RateLimitRuleFactory;
import dev.ratelimit.web.LimitDefinition;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Turns the rules of {@code ratelimit.rules.*} into checked rules, every problem a startup error that
 * names the property.
 */
final class PropertyRules {

	private PropertyRules() {
	}

	/**
	 * Returns the CIDR blocks of a list of addresses, each bad one a startup error naming its property.
	 */
	static List<CidrBlock> blocks(String property, List<String> addresses) {
		List<CidrBlock> blocks = new ArrayList<>();
		for (int i = 0; i < addresses.size(); i++) {
			blocks.add(PropertyErrors.check(property + "[" + i + "]", addresses.get(i), CidrBlock::parse));
		}
		return blocks;
	}

	static AddressLists addressLists(RateLimitProperties properties) {
		return new AddressLists(blocks("ratelimit.allow.addresses", properties.getAllow().getAddresses()),
				blocks("ratelimit.deny.addresses", properties.getDeny().getAddresses()));
	}

	static List<RateLimitRule> of(RateLimitProperties properties, RateLimitRuleFactory factory) {
		List<RateLimitRule> rules = new ArrayList<>();
		for (Map.Entry<String, RateLimitProperties.Rule> entry : properties.getRules().entrySet()) {
			rules.add(rule(factory, entry.getKey(), entry.getValue()));
		}
		return rules;
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
					rule.getMissingKey(), rule.getCost(), rule.getShadow())
				.withAllowKeys(new LinkedHashSet<>(rule.getAllowKeys()));
		}
		catch (InvalidRateLimitRuleException ex) {
			throw invalidProperty(ex);
		}
	}

	/**
	 * Returns the startup error of an invalid rule from properties, naming the property.
	 * @param ex the rule's error
	 * @return the error
	 */
	static InvalidConfigurationPropertyValueException invalidProperty(InvalidRateLimitRuleException ex) {
		String attribute = ex.getAttribute().equals("name") ? "" : "." + ex.getAttribute();
		return new InvalidConfigurationPropertyValueException("ratelimit.rules." + ex.getRule() + attribute,
				ex.getValue(), ex.getReason());
	}

}

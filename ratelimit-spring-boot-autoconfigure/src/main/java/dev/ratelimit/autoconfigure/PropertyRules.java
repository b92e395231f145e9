package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.rules.CalendarPeriod;
import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.KeyResolvers;
import dev.ratelimit.rules.LimitDefinition;
import dev.ratelimit.rules.PlanSource;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.ResponseCost;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Turns the rules of {@code ratelimit.rules.*} into checked rules, every problem a startup error that
 * names the property; the limits of a partner of {@code ratelimit.clients.*} too.
 *
 * @since 0.1.0
 */
public final class PropertyRules {

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

	/**
	 * Returns the client addresses of {@code ratelimit.allow.addresses}, whose calls skip every rule.
	 */
	static List<CidrBlock> allowed(RateLimitProperties properties) {
		return blocks("ratelimit.allow.addresses", properties.getAllow().getAddresses());
	}

	/**
	 * Returns the client addresses of {@code ratelimit.deny.addresses}, whose calls are refused before any rule.
	 */
	static List<CidrBlock> denied(RateLimitProperties properties) {
		return blocks("ratelimit.deny.addresses", properties.getDeny().getAddresses());
	}

	static List<RateLimitRule> of(RateLimitProperties properties, RateLimitRuleFactory factory,
			Predicate<String> planResolverExists, KeyResolvers conditions) {
		List<RateLimitRule> rules = new ArrayList<>();
		for (Map.Entry<String, RateLimitProperties.Rule> entry : properties.getRules().entrySet()) {
			RateLimitProperties.Rule rule = entry.getValue();
			String plan = rule.getPlan();
			if (plan != null && PlanSource.parse(plan.strip()) instanceof PlanSource.Header
					&& properties.getTrustedProxies().isEmpty()) {
				throw new InvalidConfigurationPropertyValueException("ratelimit.rules." + entry.getKey() + ".plan", plan,
						"a plan header is believed only on requests that come through a trusted proxy, and there is "
								+ "none; set ratelimit.trusted-proxies to the proxies that set the header, or find plans "
								+ "with a RateLimitPlanResolver bean (plan=bean:<name>)");
			}
			String name = entry.getKey();
			rules.add(rule("ratelimit.rules", factory, name, rule, planResolverExists, conditions,
					(limits) -> factory.create(name, rule.getPaths(), rule.getMethods(), limits,
							(rule.getPeriod() != null) ? Algorithm.FIXED_WINDOW : rule.getAlgorithm(), rule.getKey(),
							rule.getMissingKey(), rule.getCost(), rule.getShadow())));
		}
		return rules;
	}

	/**
	 * Checks a calendar quota as the factory does for every rule, and gives its plans the period's window.
	 */
	private static void checkQuota(String prefix, String name, RateLimitProperties.Rule rule, CalendarPeriod period) {
		try {
			RateLimitRuleFactory.checkQuota(name, period, rule.getWindow(),
					!rule.getLimits().isEmpty() || rule.getBurst() != null, rule.getBlockFor(), rule.getAlgorithm());
		}
		catch (InvalidRateLimitRuleException ex) {
			throw invalidProperty(prefix, ex);
		}
		for (RateLimitProperties.Plan plan : rule.getPlans().values()) {
			if (plan.getWindow() == null) {
				plan.setWindow(period.longest());
			}
		}
	}

	/**
	 * Returns the limits of a rule, plan or partner as configured: the short form, or several limits.
	 * @param property the property of the rule, plan or partner, such as {@code ratelimit.clients.maps}
	 * @param prefix what a limit's attribute is prefixed with in messages, empty for none
	 * @param shortForm the short form's values
	 * @param several the values of {@code limits[*]}
	 * @return the limits
	 */
	public static List<LimitDefinition> definitions(String property, String prefix, LimitValues shortForm,
			List<LimitValues> several) {
		List<LimitDefinition> limits = new ArrayList<>();
		if (several.isEmpty()) {
			limits.add(new LimitDefinition(prefix, shortForm.limit(), shortForm.window(), shortForm.burst()));
		}
		else if (shortForm.limit() != null || shortForm.window() != null || shortForm.burst() != null) {
			throw new InvalidConfigurationPropertyValueException(property + "." + prefix + "limits",
					several.size() + " limits",
					"give either limit, window and burst, or limits[*], not both; move the short form into limits");
		}
		for (int i = 0; i < several.size(); i++) {
			LimitValues each = several.get(i);
			limits.add(new LimitDefinition(prefix + "limits[" + i + "].", each.limit(), each.window(), each.burst()));
		}
		return limits;
	}

	/** The values of a rule's or a plan's {@code limits[*]}. */
	private static List<LimitValues> several(List<RateLimitProperties.Limit> limits) {
		return limits.stream().map((each) -> new LimitValues(each.getLimit(), each.getWindow(), each.getBurst())).toList();
	}

	/**
	 * Returns the rule of a group of properties that binds a request rule's options for calls that are no request
	 * matched by path, such as {@code ratelimit.ai.rules.<name>} (a chat client's calls to its model): limits,
	 * algorithm, key, missing key, plans, calendar period, shadow, enforce, blocks, allowed keys; every problem a
	 * startup error naming the property under the prefix.
	 * @param prefix the prefix of the rules, such as {@code ratelimit.ai.rules}
	 * @param factory checks and builds the rule (its key resolvers those the rule may name)
	 * @param name the rule's name
	 * @param rule its properties
	 * @return the rule
	 * @throws InvalidConfigurationPropertyValueException naming the property when a value is invalid
	 */
	public static RateLimitRule forCalls(String prefix, RateLimitRuleFactory factory, String name,
			RateLimitProperties.Rule rule) {
		return rule(prefix, factory, name, rule, factory.planResolvers(), NO_CONDITIONS,
				(limits) -> factory.forCalls(name, limits,
						(rule.getPeriod() != null) ? Algorithm.FIXED_WINDOW : rule.getAlgorithm(), rule.getKey(),
						rule.getMissingKey(), rule.getShadow(), prefix + "." + name));
	}

	/** Rules for calls that are no request name no condition bean: none exists. */
	private static final KeyResolvers NO_CONDITIONS = new KeyResolvers() {

		@Override
		public boolean exists(String name) {
			return false;
		}

		@Override
		public String type() {
			return "RateLimitCondition (rules of calls that are no request take none)";
		}

	};

	/** Creates a rule of its limits, as its kind of rule is created. */
	@FunctionalInterface
	private interface Creation {

		RateLimitRule create(List<LimitDefinition> limits);

	}

	private static RateLimitRule rule(String prefix, RateLimitRuleFactory factory, String name,
			RateLimitProperties.Rule rule, Predicate<String> planResolverExists, KeyResolvers conditions,
			Creation creation) {
		String property = prefix + "." + name;
		CalendarPeriod period = rule.getPeriod();
		if (period != null) {
			checkQuota(prefix, name, rule, period);
		}
		List<LimitDefinition> limits = (period != null)
				? List.of(new LimitDefinition("", rule.getLimit(), period.longest(), null))
				: inFlightOnly(rule) ? List.of()
						: definitions(property, "", new LimitValues(rule.getLimit(), rule.getWindow(), rule.getBurst()),
								several(rule.getLimits()));
		Map<String, List<LimitDefinition>> plans = new LinkedHashMap<>();
		rule.getPlans().forEach((plan, planLimits) -> plans.put(plan, definitions(property, "plans." + plan + ".",
				new LimitValues(planLimits.getLimit(), planLimits.getWindow(), planLimits.getBurst()),
				several(planLimits.getLimits()))));
		try {
			// a calendar quota is a fixed window, the calendar's, whatever ratelimit.default-algorithm says
			RateLimitRule created = creation.create(limits);
			RateLimitRule planned = factory.withBlock(
					factory.withScope(factory.withPlans(created, rule.getPlan(), plans, planResolverExists),
							rule.getExcludePaths(), rule.getCondition(), conditions, rule.getCountStatuses()),
					rule.getBlockFor(), rule.getBlockMultiplier(), rule.getBlockMax());
			RateLimitRule.Builder builder = factory
				.withCostFrom(factory.withConcurrency(planned, rule.getConcurrency(), rule.getConcurrencyLease()),
						costFrom(name, rule))
				.toBuilder();
			if (period != null) {
				builder.period(period, rule.getZone());
			}
			return perMessage(factory.withWaiting(rule.applyTo(builder).build(), rule.getMaxWait(), rule.getMaxWaiting()));
		}
		catch (InvalidRateLimitRuleException ex) {
			throw invalidProperty(prefix, ex);
		}
	}

	private static @Nullable ResponseCost costFrom(String name, RateLimitProperties.Rule rule) {
		String costFrom = rule.getCostFrom();
		if (costFrom == null) {
			if (rule.isCostFromExpose()) {
				throw new InvalidRateLimitRuleException(name, "cost-from-expose", true,
						"it keeps the cost-from header in responses, and the rule has none; set cost-from too");
			}
			return null;
		}
		return ResponseCost.header(name, costFrom, rule.isCostFromExpose());
	}

	/**
	 * Checks a rule that charges the messages of streaming gRPC calls: it must be able to match a gRPC call (a
	 * {@code POST}), and charge what a message can be charged (not a slot, a status or a cost read once the call ends).
	 */
	private static RateLimitRule perMessage(RateLimitRule rule) {
		if (!rule.chargePerMessage()) {
			return rule;
		}
		String reason = null;
		if (!rule.methods().isEmpty() && !rule.methods().contains("POST")) {
			reason = "the rule's methods " + rule.methods() + " leave out POST, the method of every gRPC call: it can "
					+ "only match HTTP requests, and each of them is one message; remove charge-per-message, or add POST "
					+ "to methods";
		}
		else if (rule.concurrency() != null) {
			reason = "a call holds its slot of concurrency from its start to its end, whatever it carries; limit the "
					+ "calls in flight and the messages in two rules";
		}
		else if (rule.countStatuses() != null) {
			reason = "count-statuses charges a call by the status it ends with, once; charge the messages and count "
					+ "statuses in two rules";
		}
		else if (rule.costFrom() != null) {
			reason = "cost-from reads a call's actual cost once it ends; charge the messages and read the cost in two "
					+ "rules";
		}
		if (reason != null) {
			throw new InvalidRateLimitRuleException(rule.name(), "charge-per-message", true, reason);
		}
		return rule;
	}

	/** Whether a rule limits requests in flight only: a concurrency, and no limit, window, burst, limits or plans. */
	private static boolean inFlightOnly(RateLimitProperties.Rule rule) {
		return rule.getConcurrency() != null && rule.getLimit() == null && rule.getWindow() == null
				&& rule.getBurst() == null && rule.getLimits().isEmpty() && rule.getPlans().isEmpty();
	}

	/**
	 * One limit as configured: the short form of a rule, a plan or a partner, or one of its {@code limits[*]}.
	 * @param limit permits per window
	 * @param window length of the window
	 * @param burst permits that may be taken at once
	 */
	public record LimitValues(@Nullable Long limit, @Nullable Duration window, @Nullable Long burst) {

	}

	/**
	 * Returns the startup error of an invalid rule from properties, naming the property.
	 * @param ex the rule's error
	 * @return the error
	 */
	static InvalidConfigurationPropertyValueException invalidProperty(InvalidRateLimitRuleException ex) {
		return invalidProperty("ratelimit.rules", ex);
	}

	/**
	 * Returns the startup error of an invalid rule of a group of rules, naming the property.
	 * @param prefix the prefix of the rules, such as {@code ratelimit.ai.rules}
	 * @param ex the rule's error
	 * @return the error
	 */
	public static InvalidConfigurationPropertyValueException invalidProperty(String prefix,
			InvalidRateLimitRuleException ex) {
		String attribute = ex.getAttribute().equals("name") ? "" : "." + ex.getAttribute();
		return new InvalidConfigurationPropertyValueException(prefix + "." + ex.getRule() + attribute, ex.getValue(),
				ex.getReason());
	}

}

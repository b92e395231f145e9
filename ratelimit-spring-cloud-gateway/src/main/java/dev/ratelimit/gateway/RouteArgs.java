package dev.ratelimit.gateway;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.LimitDefinition;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.ResponseCost;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.core.NestedExceptionUtils;

/**
 * Reads the {@code ratelimit.*} args of a route's {@code RequestRateLimiter} filter into a checked
 * {@link RateLimitRule}, every problem an error that names the arg, its value and the fix; and checks the
 * routes of the gateway's properties at startup.
 */
final class RouteArgs {

	static final String PREFIX = GatewayRateLimiter.CONFIGURATION_PROPERTY_NAME + ".";

	private static final String FILTER_NAME = "RequestRateLimiter";

	/** The longest name of a rule. */
	private static final int MAX_NAME_LENGTH = 100;

	private static final String ARGS = "use ratelimit.limit, ratelimit.window, ratelimit.algorithm, ratelimit.burst, "
			+ "ratelimit.cost, ratelimit.plan and ratelimit.plans.<plan>.*, ratelimit.budget, ratelimit.concurrency, "
			+ "ratelimit.concurrency-lease, ratelimit.cost-from, ratelimit.cost-from-expose, ratelimit.prefetch, or ratelimit.limits[i].limit, "
			+ ".window and .burst";

	private final RateLimitRuleFactory factory;

	RouteArgs(RateLimitRuleFactory factory) {
		this.factory = factory;
	}

	/**
	 * Returns whether a filter's args are ratelimit's: one of them starts with {@code ratelimit.}.
	 */
	static boolean concernsUs(Map<String, ?> args) {
		return args.keySet().stream().anyMatch((key) -> key.startsWith(PREFIX));
	}

	/**
	 * Binds a route's args, refusing an arg under {@code ratelimit.} that it does not know.
	 * @throws InvalidRateLimitRuleException naming the arg
	 */
	GatewayRateLimiter.Config bind(String routeId, Map<String, ?> args) {
		Map<String, Object> ours = new LinkedHashMap<>();
		args.forEach((key, value) -> {
			if (key.startsWith(PREFIX)) {
				ours.put(key, value);
			}
		});
		Binder binder = new Binder(List.of(new MapConfigurationPropertySource(ours)), null,
				ApplicationConversionService.getSharedInstance());
		try {
			return binder.bindOrCreate(GatewayRateLimiter.CONFIGURATION_PROPERTY_NAME,
					Bindable.of(GatewayRateLimiter.Config.class), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
		}
		catch (BindException ex) {
			throw invalid(routeId, ex);
		}
	}

	/**
	 * Returns the rule of a route's bound args.
	 * @throws InvalidRateLimitRuleException naming the arg, such as {@code ratelimit.limit}
	 */
	RateLimitRule rule(String routeId, GatewayRateLimiter.Config config) {
		List<LimitDefinition> limits = new ArrayList<>();
		boolean inFlightOnly = config.getConcurrency() != null && config.getLimit() == null && config.getWindow() == null
				&& config.getBurst() == null && config.getLimits().isEmpty();
		if (inFlightOnly) {
			// a route of requests in flight only: withConcurrency checks it
		}
		else if (config.getLimits().isEmpty()) {
			limits.add(new LimitDefinition("", config.getLimit(), config.getWindow(), config.getBurst()));
		}
		else if (config.getLimit() != null || config.getWindow() != null || config.getBurst() != null) {
			throw new InvalidRateLimitRuleException(routeId, PREFIX + "limits", config.getLimits().size() + " limits",
					"give either ratelimit.limit, ratelimit.window and ratelimit.burst, or ratelimit.limits[i], not both; "
							+ "move the short form into ratelimit.limits");
		}
		for (int i = 0; i < config.getLimits().size(); i++) {
			RateLimitProperties.Limit limit = config.getLimits().get(i);
			limits.add(new LimitDefinition("limits[" + i + "].", limit.getLimit(), limit.getWindow(), limit.getBurst()));
		}
		try {
			String budget = config.getBudget();
			if (budget != null && (budget.isBlank() || !budget.strip().equals(policyName(budget.strip())))) {
				throw new InvalidRateLimitRuleException(routeId, "budget", budget,
						"name the shared budget with letters, digits, '.', '_' and '-'");
			}
			RateLimitRule rule = this.factory.forAttachment((budget != null) ? budget.strip() : policyName(routeId), limits,
					config.getAlgorithm(), config.getCost(), "route '" + routeId + "'");
			rule = this.factory.withPlans(rule, plan(config.getPlan()), plans(config), this.factory.planResolvers());
			rule = this.factory.withConcurrency(rule, config.getConcurrency(), config.getConcurrencyLease());
			String costFrom = config.getCostFrom();
			if (costFrom == null && config.isCostFromExpose()) {
				throw new InvalidRateLimitRuleException(routeId, "cost-from-expose", true,
						"it keeps the cost-from header in responses, and the route has none; set ratelimit.cost-from too");
			}
			rule = this.factory.withCostFrom(rule,
					(costFrom != null) ? ResponseCost.header(rule.name(), costFrom, config.isCostFromExpose()) : null);
			Long prefetch = config.getPrefetch();
			rule = (prefetch != null) ? rule.toBuilder().prefetch(prefetch).build() : rule;
			return this.factory.withWaiting(rule, config.getMaxWait(), config.getMaxWaiting());
		}
		catch (InvalidRateLimitRuleException ex) {
			throw new InvalidRateLimitRuleException(routeId, PREFIX + ex.getAttribute(), ex.getValue(), ex.getReason());
		}
	}

	/**
	 * Returns the rule of a route's args.
	 * @throws InvalidRateLimitRuleException naming the arg
	 */
	/** A route's plan comes from a bean: the filter hands the limiter no request to read a header of. */
	private static @Nullable String plan(@Nullable String plan) {
		if (plan != null && !plan.strip().toLowerCase(java.util.Locale.ROOT).startsWith("bean:")) {
			throw new InvalidRateLimitRuleException("route", "plan", plan,
					"a route's plan comes from a RateLimitPlanResolver bean (bean:<name>), asked with the key its KeyResolver "
							+ "found; a header is not read here");
		}
		return plan;
	}

	private static Map<String, List<LimitDefinition>> plans(GatewayRateLimiter.Config config) {
		Map<String, List<LimitDefinition>> plans = new LinkedHashMap<>();
		config.getPlans().forEach((name, plan) -> {
			List<LimitDefinition> limits = new ArrayList<>();
			String prefix = "plans." + name + ".";
			if (plan.getLimits().isEmpty()) {
				limits.add(new LimitDefinition(prefix, plan.getLimit(), plan.getWindow(), plan.getBurst()));
			}
			for (int i = 0; i < plan.getLimits().size(); i++) {
				RateLimitProperties.Limit limit = plan.getLimits().get(i);
				limits.add(new LimitDefinition(prefix + "limits[" + i + "].", limit.getLimit(), limit.getWindow(),
						limit.getBurst()));
			}
			plans.put(name, limits);
		});
		return plans;
	}

	RateLimitRule rule(String routeId, Map<String, ?> args) {
		return rule(routeId, bind(routeId, args));
	}

	/**
	 * Checks the {@code RequestRateLimiter} filters of the routes and default filters in the gateway's
	 * properties, so that a mistake stops the application at startup rather than its routes failing to load.
	 * Args that other sources add later, or that are SpEL expressions, are checked when the routes load.
	 * @throws InvalidConfigurationPropertyValueException naming the property
	 */
	void check(GatewayProperties gateway) {
		String prefix = GatewayProperties.PREFIX;
		Map<String, RateLimitRule> budgets = new LinkedHashMap<>();
		List<Named> named = new ArrayList<>();
		for (int i = 0; i < gateway.getRoutes().size(); i++) {
			RouteDefinition route = gateway.getRoutes().get(i);
			String routeId = (route.getId() != null) ? route.getId() : "routes[" + i + "]";
			for (int j = 0; j < route.getFilters().size(); j++) {
				RateLimitRule rule = check(prefix + ".routes[" + i + "].filters[" + j + "].args.", routeId,
						route.getFilters().get(j), budgets);
				if (rule != null) {
					Named charging = new Named(routeId, rule.name(),
							route.getFilters().get(j).getArgs().get(PREFIX + "budget"));
					for (Named other : named) {
						String reason = sharedWithoutSaying(charging, other);
						if (reason != null) {
							throw new InvalidConfigurationPropertyValueException(prefix + ".routes[" + i + "].id", routeId,
									reason);
						}
					}
					named.add(charging);
				}
			}
		}
		for (int j = 0; j < gateway.getDefaultFilters().size(); j++) {
			check(prefix + ".default-filters[" + j + "].args.", "default-filters[" + j + "]",
					gateway.getDefaultFilters().get(j), budgets);
		}
	}

	/** Checks one filter; returns its rule when it is ratelimit's and was read, else {@code null}. */
	private @Nullable RateLimitRule check(String argsProperty, String routeId, FilterDefinition filter,
			Map<String, RateLimitRule> budgets) {
		Map<String, String> args = filter.getArgs();
		if (!FILTER_NAME.equals(filter.getName()) || namesItsOwnLimiter(args)
				|| args.values().stream().anyMatch((value) -> value != null && value.strip().startsWith("#{"))) {
			return null;
		}
		try {
			if (!concernsUs(args)) {
				throw new InvalidRateLimitRuleException(routeId, PREFIX + "limit", null, missingArgs(args));
			}
			RateLimitRule rule = rule(routeId, args);
			if (args.containsKey(PREFIX + "budget")) {
				// routes that share a budget charge one state per key: under the same limits
				RateLimitRule other = budgets.putIfAbsent(rule.name(), rule);
				if (other != null && !other.limits().equals(rule.limits())) {
					throw new InvalidRateLimitRuleException(routeId, PREFIX + "budget", rule.name(), other.source()
							+ " shares this budget under other limits; give every route of a budget the same limits");
				}
			}
			return rule;
		}
		catch (InvalidRateLimitRuleException ex) {
			throw new InvalidConfigurationPropertyValueException(argsProperty + ex.getAttribute(), ex.getValue(),
					ex.getReason() + " (" + ex.getAttribute() + " of the RequestRateLimiter filter of route '" + routeId
							+ "')");
		}
	}

	private static String missingArgs(Map<String, String> args) {
		String reason = "ratelimit's rate limiter is the filter's default, so set ratelimit.limit and "
				+ "ratelimit.window in the filter's args";
		if (args.keySet().stream().anyMatch((key) -> key.startsWith("redis-rate-limiter."))) {
			return reason + " in place of redis-rate-limiter.*, which only Spring Cloud Gateway's RedisRateLimiter "
					+ "reads (replenish-rate R, burst-capacity B and requested-tokens T are ratelimit.algorithm="
					+ "token-bucket, ratelimit.limit=R, ratelimit.window=1s, ratelimit.burst=B and ratelimit.cost=T)";
		}
		return reason;
	}

	private static boolean namesItsOwnLimiter(Map<String, String> args) {
		return args.keySet().stream().anyMatch((key) -> key.replace("-", "").equalsIgnoreCase("ratelimiter"));
	}

	/**
	 * Returns the policy name of a route in the rate-limit headers, and of its budget in Redis: its id when a rule's
	 * name can hold it (letters, digits, {@code .}, {@code _} and {@code -}, at most 100), so that such a route's
	 * budget keeps its key; else the id with every other character replaced with {@code _}, cut to fit, and a
	 * fingerprint of the whole id, so that ids that read alike once replaced ({@code orders/v1}, {@code orders:v1})
	 * keep budgets of their own.
	 */
	static String policyName(String routeId) {
		String name = routeId.replaceAll("[^A-Za-z0-9._-]", "_");
		if (name.equals(routeId) && !name.isEmpty() && name.length() <= MAX_NAME_LENGTH) {
			return name;
		}
		String fingerprint = RateLimitKeys.fingerprint(routeId).substring(1);
		int room = MAX_NAME_LENGTH - fingerprint.length() - 1;
		return ((name.length() > room) ? name.substring(0, room) : name) + "-" + fingerprint;
	}

	/**
	 * Returns why a route must not charge the budget that another route's rule names: two routes of one name (an id
	 * that is another's fingerprinted name, or another's {@code ratelimit.budget}) would charge one budget, which only
	 * routes that both give {@code ratelimit.budget} share.
	 * @param route the route, its budget's name and its {@code ratelimit.budget} arg
	 * @param other another route, the same
	 * @return the reason, naming both routes and the fix; {@code null} when they do not share a budget unsaid
	 */
	static @Nullable String sharedWithoutSaying(Named route, Named other) {
		if (route.id().equals(other.id()) || !route.name().equals(other.name())
				|| (route.budget() != null && other.budget() != null)) {
			return null;
		}
		return "routes '" + other.id() + "' and '" + route.id() + "' would charge one budget, '" + route.name()
				+ "': give one of them another id, or both ratelimit.budget=" + route.name() + " to share it";
	}

	/**
	 * A route's id, the name of the budget it charges, and its {@code ratelimit.budget} arg.
	 *
	 * @param id the route's id
	 * @param name the name of its budget
	 * @param budget its {@code ratelimit.budget} arg, {@code null} when it has none
	 */
	record Named(String id, String name, @Nullable String budget) {

	}

	private static InvalidRateLimitRuleException invalid(String routeId, BindException ex) {
		if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound
				&& !unbound.getUnboundProperties().isEmpty()) {
			ConfigurationProperty property = unbound.getUnboundProperties().iterator().next();
			return new InvalidRateLimitRuleException(routeId, property.getName().toString(), property.getValue(),
					"not an arg of ratelimit's rate limiter; " + ARGS);
		}
		ConfigurationProperty property = ex.getProperty();
		Object value = (property != null) ? property.getValue() : null;
		Class<?> type = ex.getTarget().getType().resolve(Object.class);
		String reason;
		if (type == Duration.class) {
			reason = "not a duration; use a form such as 500ms, 30s, 1m, 1h or PT1M";
		}
		else if (type == Algorithm.class) {
			reason = "not an algorithm; use one of "
					+ String.join(", ", Arrays.stream(Algorithm.values()).map(Algorithm::id).toList());
		}
		else if (type == Long.class || type == long.class) {
			reason = "not a whole number";
		}
		else {
			reason = "not readable: " + NestedExceptionUtils.getMostSpecificCause(ex).getMessage() + "; " + ARGS;
		}
		return new InvalidRateLimitRuleException(routeId, ex.getName().toString(), value, reason);
	}

}

package dev.ratelimit.gateway;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.CallEnd;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.flow.PendingSettlement;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;

import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.ApplicationListener;
import org.springframework.cloud.gateway.support.HttpStatusHolder;
import org.springframework.http.HttpStatusCode;
import org.springframework.util.Assert;
import org.springframework.web.server.ResponseStatusException;

/**
 * The {@link RateLimiter} of Spring Cloud Gateway's {@code RequestRateLimiter} filter on ratelimit's
 * limiters: any algorithm, several limits charged all or nothing, a cost per request, configured per route
 * through the filter's {@code ratelimit.*} args the way Spring Cloud Gateway's {@code RedisRateLimiter} reads
 * {@code redis-rate-limiter.*}. Each route's args become a rule, taken by the {@link dev.ratelimit.rules.flow.RateLimitFlow} that
 * takes every web stack's requests, without blocking: a request charges {@code <route>:resolver:<key>},
 * the key being what the route's {@code KeyResolver} found (an id that a rule's name cannot hold is replaced and
 * fingerprinted, so that every route keeps a budget of its own unless routes say they share one); its response carries the {@code RateLimit-Policy}
 * and {@code RateLimit} headers and, when refused, {@code Retry-After}. When no decision can be reached the
 * failure mode applies: {@code fail-open} lets the request through, {@code fail-closed} refuses it (with the
 * filter's status and {@code Retry-After: 1}), {@code local} decides in this instance's memory.
 *
 * @since 0.1.0
 */
public class GatewayRateLimiter implements RateLimiter<GatewayRateLimiter.Config>, ApplicationListener<FilterArgsEvent> {

	/** The prefix of the filter args this limiter reads, as {@code redis-rate-limiter} is Spring Cloud Gateway's. */
	public static final String CONFIGURATION_PROPERTY_NAME = "ratelimit";

	private static final Log logger = LogFactory.getLog(GatewayRateLimiter.class);

	private final RateLimitFlow flow;

	private final RouteArgs args;

	private final Map<String, Config> configs = new ConcurrentHashMap<>();

	private final Map<String, RateLimitRule> rules = new ConcurrentHashMap<>();

	private final EmptyKeys emptyKeys;

	/** The routes whose filter says what to do with an empty key itself ({@code deny-empty-key}, ...). */
	private final Map<String, EmptyKeys> routeEmptyKeys = new ConcurrentHashMap<>();

	/**
	 * Creates a limiter.
	 * @param flow decides the rules of the routes, applies the failure mode and builds the headers, as it does
	 * for every web stack
	 * @param rules checks the limits of each route, and knows the default algorithm
	 * @param emptyKeys what the {@code RequestRateLimiter} filter does with a request whose key is empty, as
	 * {@code spring.cloud.gateway.server.webflux.filter.request-rate-limiter.*} says, for a key that is blank
	 * rather than absent (which the filter handles before asking the limiter)
	 */
	public GatewayRateLimiter(RateLimitFlow flow, RateLimitRuleFactory rules, EmptyKeys emptyKeys) {
		Assert.notNull(flow, "flow must not be null");
		Assert.notNull(rules, "rules must not be null");
		Assert.notNull(emptyKeys, "emptyKeys must not be null");
		this.flow = flow;
		this.args = new RouteArgs(rules);
		this.emptyKeys = emptyKeys;
	}

	/**
	 * Reads the {@code ratelimit.*} args of a route's {@code RequestRateLimiter} filter when its routes load,
	 * as Spring Cloud Gateway's rate limiters read theirs.
	 * @param event the args of one filter of one route
	 * @throws dev.ratelimit.rules.InvalidRateLimitRuleException when an arg is invalid, naming it; the route
	 * does not load
	 */
	@Override
	public void onApplicationEvent(FilterArgsEvent event) {
		Map<String, Object> filterArgs = event.getArgs();
		if (!RouteArgs.concernsUs(filterArgs)) {
			return;
		}
		String routeId = event.getRouteId();
		Config config = this.args.bind(routeId, filterArgs);
		RateLimitRule rule = this.args.rule(routeId, config);
		RouteArgs.Named named = new RouteArgs.Named(routeId, rule.name(), config.getBudget());
		this.rules.forEach((other, known) -> {
			Config otherConfig = this.configs.get(other);
			String reason = RouteArgs.sharedWithoutSaying(named,
					new RouteArgs.Named(other, known.name(), (otherConfig != null) ? otherConfig.getBudget() : null));
			if (reason != null) {
				throw new InvalidRateLimitRuleException(routeId, "id", routeId, reason);
			}
		});
		if (config.getBudget() != null) {
			// routes that share a budget charge one state per key: under the same limits
			this.rules.forEach((other, known) -> {
				if (!other.equals(routeId) && known.name().equals(rule.name()) && !known.limits().equals(rule.limits())) {
					throw new InvalidRateLimitRuleException(routeId, RouteArgs.PREFIX + "budget", config.getBudget(),
							"route '" + other + "' shares this budget under other limits; give them the same limits");
				}
			});
		}
		RateLimitRule previous = this.rules.put(routeId, rule);
		this.configs.put(routeId, config);
		EmptyKeys own = this.emptyKeys.of(filterArgs);
		if (own.equals(this.emptyKeys)) {
			this.routeEmptyKeys.remove(routeId);
		}
		else {
			this.routeEmptyKeys.put(routeId, own);
		}
		if (!rule.equals(previous)) {
			logger.info(rule.describe());
		}
	}

	/**
	 * Checks the args of the {@code RequestRateLimiter} filters in the gateway's properties, so that a mistake
	 * stops the application at startup.
	 * @param gateway the gateway's properties
	 * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
	 * naming the property at fault
	 */
	public void checkRoutes(GatewayProperties gateway) {
		this.args.check(gateway);
	}

	/**
	 * Decides a request of a route for the key its {@code KeyResolver} found.
	 * @param routeId the route
	 * @param id the key
	 * @return the response: whether the request may pass, and its rate-limit headers
	 */
	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		RateLimitRule rule = this.rules.get(routeId);
		if (rule == null) {
			return Mono.error(new IllegalStateException("Route '" + routeId + "' has a RequestRateLimiter filter but "
					+ "no ratelimit.limit and ratelimit.window in its args; set them, or give the filter a rate-limiter "
					+ "of its own"));
		}
		if (id.isBlank()) {
			// a blank key would put every such caller in one budget: it is an empty key, as the filter treats none
			EmptyKeys emptyKeys = this.routeEmptyKeys.getOrDefault(routeId, this.emptyKeys);
			return emptyKeys.deny() ? Mono.error(new ResponseStatusException(emptyKeys.status(),
					"The KeyResolver of route '" + routeId + "' found an empty key"))
					: Mono.just(new Response(true, Map.of()));
		}
		// a client that goes away does not cancel the decision: Redis may already have charged it. The filter asks
		// on the event loop of the request's connection, and the limiters' asynchronous answers come back on the
		// loop they were asked on (docs/limiters.md): the filters after this one go on there.
		// with the request's server observation current, the decision's observation is its child
		return Mono.deferContextual((context) -> Mono.fromFuture(() -> {
			RouteExchange exchange = new RouteExchange(routeId, id, context);
			return this.flow.apply(exchange, List.of(rule)).thenApply((allowed) -> {
				AfterResponse after = exchange.after();
				if (!after.isEmpty()) {
					PendingSettlement held = context.getOrDefault(PendingSettlement.class, null);
					if (held == null || !held.add(after)) {
						// no settlement filter around the route (the application replaced it), or the exchange ended
						// while Redis was deciding: given back at once
						this.flow.end(after, CallEnd.abandoned(), false);
					}
				}
				return new Response(allowed, exchange.headers());
			});
		}, true));
	}

	/**
	 * Returns the args of each route, by route id, as they were bound.
	 * @return the args, read-only
	 */
	@Override
	public Map<String, Config> getConfig() {
		return Collections.unmodifiableMap(this.configs);
	}

	@Override
	public Class<Config> getConfigClass() {
		return Config.class;
	}

	@Override
	public Config newConfig() {
		return new Config();
	}

	/**
	 * Returns the rule of a route, as its args define it.
	 * @param routeId the route
	 * @return the rule, or {@code null} when the route has no {@code ratelimit.*} args
	 */
	public @Nullable RateLimitRule rule(String routeId) {
		return this.rules.get(routeId);
	}

	/**
	 * What the {@code RequestRateLimiter} filter does with a request whose key is empty: refuses it with a
	 * status, or lets it through uncharged.
	 *
	 * @param deny whether such a request is refused ({@code deny-empty-key})
	 * @param status the status it is refused with ({@code empty-key-status-code}, {@code FORBIDDEN} by default)
	 * @since 0.1.0
	 */
	public record EmptyKeys(boolean deny, HttpStatusCode status) {

		/**
		 * Reads a status as the filter's properties write it: a name such as {@code FORBIDDEN}, or a number.
		 * @param deny whether a request with an empty key is refused
		 * @param status the status's name or number
		 * @return the policy
		 * @throws IllegalArgumentException naming the status when it is neither
		 */
		public static EmptyKeys of(boolean deny, String status) {
			HttpStatusHolder holder = HttpStatusHolder.parse(status.strip());
			if (holder.getHttpStatus() != null) {
				return new EmptyKeys(deny, holder.getHttpStatus());
			}
			Assert.isTrue(holder.getStatus() != null,
					() -> "empty-key-status-code '" + status + "' is neither an HTTP status name nor a number");
			return new EmptyKeys(deny, HttpStatusCode.valueOf(holder.getStatus()));
		}

		/** This policy, overridden by a filter's own {@code deny-empty-key} and {@code empty-key-status} args. */
		EmptyKeys of(Map<String, ?> filterArgs) {
			Object deny = arg(filterArgs, "deny-empty-key", "denyEmptyKey");
			Object status = arg(filterArgs, "empty-key-status", "emptyKeyStatus");
			if (deny == null && status == null) {
				return this;
			}
			EmptyKeys own = (status != null) ? of(this.deny, status.toString()) : this;
			return (deny != null) ? new EmptyKeys(Boolean.parseBoolean(deny.toString().strip()), own.status()) : own;
		}

		private static @Nullable Object arg(Map<String, ?> filterArgs, String name, String camelCase) {
			Object value = filterArgs.get(name);
			return (value != null) ? value : filterArgs.get(camelCase);
		}

	}

	/**
	 * The {@code ratelimit.*} args of one route's {@code RequestRateLimiter} filter: what charges a request as a rule's
	 * properties say it ({@code limit}, {@code window}, {@code burst}, several {@code limits}, {@code algorithm},
	 * {@code cost}, {@code plan} and {@code plans}, {@code cost-from}, {@code concurrency}), and the budget it shares
	 * with other routes.
	 */
	public static class Config extends RateLimitProperties.Charge {

		/**
		 * The name of a budget several routes share: their requests charge one budget per key, under the same limits.
		 */
		private @Nullable String budget;

		public @Nullable String getBudget() {
			return this.budget;
		}

		public void setBudget(@Nullable String budget) {
			this.budget = budget;
		}

	}

}

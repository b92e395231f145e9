package dev.ratelimit.gateway;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.RedisKeys;
import dev.ratelimit.web.AppliedLimit;
import dev.ratelimit.web.LogThrottle;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RateLimitRule;
import dev.ratelimit.web.RateLimitRuleFactory;
import dev.ratelimit.web.RateLimitVerdict;

import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.ApplicationListener;
import org.springframework.http.HttpHeaders;
import org.springframework.util.Assert;

/**
 * The {@link RateLimiter} of Spring Cloud Gateway's {@code RequestRateLimiter} filter on ratelimit's
 * limiters: any algorithm, several limits charged all or nothing, a cost per request, configured per route
 * through the filter's {@code ratelimit.*} args the way Spring Cloud Gateway's {@code RedisRateLimiter} reads
 * {@code redis-rate-limiter.*}. A request is charged under its route and the key the route's
 * {@code KeyResolver} found; its response carries the {@code RateLimit-Policy} and {@code RateLimit} headers
 * and, when refused, {@code Retry-After}. Decisions never block the calling thread: Redis answers through
 * {@link dev.ratelimit.RateLimiter#tryAcquireAsync}. When no decision can be reached the failure mode
 * applies: {@code fail-open} lets the request through, {@code fail-closed} refuses it (with the filter's
 * status and {@code Retry-After: 1}), {@code local} decides in this instance's memory.
 */
public class GatewayRateLimiter implements RateLimiter<GatewayRateLimiter.Config>, ApplicationListener<FilterArgsEvent> {

	/** The prefix of the filter args this limiter reads, as {@code redis-rate-limiter} is Spring Cloud Gateway's. */
	public static final String CONFIGURATION_PROPERTY_NAME = "ratelimit";

	private static final Log logger = LogFactory.getLog(GatewayRateLimiter.class);

	private final Map<Algorithm, dev.ratelimit.RateLimiter> limiters;

	private final RouteArgs args;

	private final FailureMode failureMode;

	private final dev.ratelimit.@Nullable RateLimiter local;

	private final RateLimitHeaders headers;

	private final Map<String, Config> configs = new ConcurrentHashMap<>();

	private final Map<String, RateLimitRule> rules = new ConcurrentHashMap<>();

	private final LogThrottle unexpected = new LogThrottle();

	/**
	 * Creates a limiter.
	 * @param limiters the limiter of each algorithm, without a fallback of its own: this limiter applies the
	 * failure mode
	 * @param rules checks the limits of each route, and knows the default algorithm
	 * @param failureMode what a request meets when no decision can be reached
	 * @param local the in-memory limiter of the {@code local} failure mode, or {@code null} in the others
	 * @param headers builds the rate-limit headers
	 */
	public GatewayRateLimiter(Map<Algorithm, dev.ratelimit.RateLimiter> limiters, RateLimitRuleFactory rules,
			FailureMode failureMode, dev.ratelimit.@Nullable RateLimiter local, RateLimitHeaders headers) {
		Assert.notNull(limiters, "limiters must not be null");
		Assert.notNull(rules, "rules must not be null");
		Assert.notNull(failureMode, "failureMode must not be null");
		Assert.notNull(headers, "headers must not be null");
		this.limiters = Map.copyOf(limiters);
		this.args = new RouteArgs(rules);
		this.failureMode = failureMode;
		this.local = local;
		this.headers = headers;
	}

	/**
	 * Reads the {@code ratelimit.*} args of a route's {@code RequestRateLimiter} filter when its routes load,
	 * as Spring Cloud Gateway's rate limiters read theirs.
	 * @param event the args of one filter of one route
	 * @throws dev.ratelimit.web.InvalidRateLimitRuleException when an arg is invalid, naming it; the route
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
		this.rules.put(routeId, rule);
		this.configs.put(routeId, config);
		if (logger.isDebugEnabled()) {
			logger.debug(rule.describe());
		}
	}

	/**
	 * Checks the args of the {@code RequestRateLimiter} filters in the gateway's properties, so that a mistake
	 * stops the application at startup.
	 * @param gateway the gateway's properties
	 * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
	 * naming the property at fault
	 */
	public void checkRoutes(org.springframework.cloud.gateway.config.GatewayProperties gateway) {
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
		String budgetId = routeId + ":" + id;
		dev.ratelimit.RateLimiter limiter = this.limiters.get(rule.algorithm());
		if (limiter == null) {
			return Mono.error(new IllegalStateException("No rate limiter decides " + rule.algorithm().id()
					+ ", the algorithm of route '" + routeId + "'"));
		}
		// a client that goes away does not cancel the limiter's call: Redis may already have charged it
		return Mono.fromFuture(() -> limiter.tryAcquireAsync(budgetId, rule.limits(), rule.cost()), true)
			.map((decisions) -> response(rule, decisions))
			.onErrorResume((ex) -> Mono.just(onFailure(rule, budgetId, ex)));
	}

	private Response response(RateLimitRule rule, List<RateLimitDecision> decisions) {
		List<AppliedLimit> applied = new ArrayList<>(decisions.size());
		List<AppliedLimit> violated = new ArrayList<>(0);
		for (int i = 0; i < decisions.size(); i++) {
			AppliedLimit limit = new AppliedLimit(rule.policyName(i), rule.limits().get(i), decisions.get(i));
			applied.add(limit);
			if (!limit.decision().allowed()) {
				violated.add(limit);
			}
		}
		// a rule in shadow mode is decided and announced, never refuses
		boolean refused = !violated.isEmpty() && !rule.shadow();
		return new Response(!refused,
				headers(new RateLimitVerdict(applied, refused ? violated : List.of(), false, null)));
	}

	/**
	 * Applies the failure mode to a request whose decision could not be reached.
	 */
	private Response onFailure(RateLimitRule rule, String budgetId, Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		if (!(cause instanceof RateLimiterUnavailableException)) {
			logUnexpected(cause);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("No decision for route '" + rule.name() + "'; the request meets ratelimit.failure-mode="
					+ this.failureMode.id() + ": " + cause.getMessage());
		}
		if (this.failureMode == FailureMode.LOCAL && this.local != null) {
			try {
				return response(rule, this.local.tryAcquire(RedisKeys.fallback(rule.algorithm(), budgetId),
						rule.limits(), rule.cost()));
			}
			catch (RuntimeException ex) {
				logUnexpected(ex);
			}
		}
		if (this.failureMode == FailureMode.FAIL_CLOSED && !rule.shadow()) {
			return new Response(false, headers(new RateLimitVerdict(List.of(), List.of(), true, null)));
		}
		return new Response(true, Map.of());
	}

	private void logUnexpected(Throwable ex) {
		if (this.unexpected.tryLog() >= 0) {
			logger.warn("The rate limiter failed unexpectedly; the request met ratelimit.failure-mode="
					+ this.failureMode.id() + " (logged at most once a minute)", ex);
		}
	}

	private Map<String, String> headers(RateLimitVerdict verdict) {
		HttpHeaders headers = this.headers.of(verdict);
		Map<String, String> map = new LinkedHashMap<>();
		headers.forEach((name, values) -> map.put(name, String.join(", ", values)));
		return map;
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
	 * The {@code ratelimit.*} args of one route's {@code RequestRateLimiter} filter.
	 */
	public static class Config {

		/**
		 * Permits per window.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the window.
		 */
		private @Nullable Duration window;

		/**
		 * For token-bucket and gcra, how many permits may be taken at once; the limit when not set.
		 */
		private @Nullable Long burst;

		/**
		 * Algorithm of the route; ratelimit.default-algorithm when not set.
		 */
		private @Nullable Algorithm algorithm;

		/**
		 * Permits one request takes.
		 */
		private long cost = 1;

		/**
		 * Several limits charged all or nothing, instead of limit, window and burst.
		 */
		private List<RateLimitProperties.Limit> limits = new ArrayList<>();

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getWindow() {
			return this.window;
		}

		public void setWindow(@Nullable Duration window) {
			this.window = window;
		}

		public @Nullable Long getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Long burst) {
			this.burst = burst;
		}

		public @Nullable Algorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(@Nullable Algorithm algorithm) {
			this.algorithm = algorithm;
		}

		public long getCost() {
			return this.cost;
		}

		public void setCost(long cost) {
			this.cost = cost;
		}

		public List<RateLimitProperties.Limit> getLimits() {
			return this.limits;
		}

		public void setLimits(List<RateLimitProperties.Limit> limits) {
			this.limits = limits;
		}

	}

}

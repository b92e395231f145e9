package dev.ratelimit.gateway;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code ratelimit.*} args of a route, as a {@code FilterArgsEvent} hands them over.
 */
class RouteArgsTests {

	private final RouteArgs args = new RouteArgs(
			new RateLimitRuleFactory(Algorithm.FIXED_WINDOW, RateLimitGatewayAutoConfiguration.NoKeyResolvers.INSTANCE,
					false));

	@Test
	void readsTheShortForm() {
		RateLimitRule rule = this.args.rule("orders", args("ratelimit.limit", 10, "ratelimit.window", "1m",
				"ratelimit.algorithm", "token-bucket", "ratelimit.burst", "20", "ratelimit.cost", "2",
				"key-resolver", "#{@clientKeyResolver}"));
		assertThat(rule.name()).isEqualTo("orders");
		assertThat(rule.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
		assertThat(rule.limits()).containsExactly(RateLimit.of(10, Duration.ofMinutes(1)).withBurst(20));
		assertThat(rule.cost()).isEqualTo(2);
		assertThat(rule.shadow()).isFalse();
	}

	@Test
	void readsSeveralLimitsAndTheDefaultAlgorithm() {
		RateLimitRule rule = this.args.rule("search", args("ratelimit.limits[0].limit", "2", "ratelimit.limits[0].window",
				"1s", "ratelimit.limits[1].limit", "100", "ratelimit.limits[1].window", "1h"));
		assertThat(rule.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
		assertThat(rule.limits()).containsExactly(RateLimit.of(2, Duration.ofSeconds(1)),
				RateLimit.of(100, Duration.ofHours(1)));
		assertThat(rule.policyName(0)).isEqualTo("search-1s");
	}

	@Test
	void readsThePermitsAnInstanceTakesAtOnce() {
		RateLimitRule rule = this.args.rule("hot", args("ratelimit.limit", "100", "ratelimit.window", "1s",
				"ratelimit.prefetch", "10"));
		assertThat(rule.prefetch()).isEqualTo(10);
	}

	@Test
	void namesThePolicyAfterTheRouteWithOnlyTheCharactersOfARuleName() {
		RateLimitRule rule = this.args.rule("ReactiveCompositeDiscoveryClient_orders service/v1",
				args("ratelimit.limit", "1", "ratelimit.window", "1s"));
		// and a fingerprint of the id, so that ids that read alike once replaced keep budgets of their own
		assertThat(rule.name()).matches("ReactiveCompositeDiscoveryClient_orders_service_v1-[0-9a-f]{12}");
	}

	@Test
	void concernsOnlyArgsUnderRatelimit() {
		assertThat(RouteArgs.concernsUs(args("redis-rate-limiter.replenishRate", "1"))).isFalse();
		assertThat(RouteArgs.concernsUs(args("ratelimit.limit", "1"))).isTrue();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.limit=0,ratelimit.window=1m                       | ratelimit.limit           | limit must be at least 1, but was 0
			ratelimit.window=1m                                         | ratelimit.limit           | set it to the permits per window
			ratelimit.limit=5                                           | ratelimit.window          | set it to the window length
			ratelimit.limit=5,ratelimit.window=a minute                 | ratelimit.window          | not a duration; use a form such as 500ms
			ratelimit.limit=five,ratelimit.window=1m                    | ratelimit.limit           | not a whole number
			ratelimit.limit=5,ratelimit.window=1m,ratelimit.algorithm=leaky-bucket | ratelimit.algorithm | use one of fixed-window, sliding-window-log
			ratelimit.limt=5,ratelimit.window=1m                        | ratelimit.limt            | not an arg of ratelimit's rate limiter; use ratelimit.limit
			ratelimit.limit=5,ratelimit.window=1m,ratelimit.burst=10    | ratelimit.burst           | applies to the token bucket and GCRA only
			ratelimit.limit=5,ratelimit.window=1m,ratelimit.cost=6      | ratelimit.cost            | must not exceed the limit of 5
			ratelimit.concurrency=2,ratelimit.cost=3                    | ratelimit.cost            | a request takes one slot and no permits, so a cost means nothing; remove cost, or set limit and window
			ratelimit.limit=2000000,ratelimit.window=1h,ratelimit.algorithm=sliding-window-log | ratelimit.limit | must not exceed 10000 for the sliding window log
			ratelimit.limit=5,ratelimit.limits[0].limit=5,ratelimit.limits[0].window=1s | ratelimit.limits | give either ratelimit.limit
			ratelimit.limits[0].limit=5,ratelimit.limits[0].window=1s,ratelimit.limits[1].limit=9,ratelimit.limits[1].window=1s | ratelimit.limits[1].window | must have distinct windows
			ratelimit.limit=5,ratelimit.window=1m,ratelimit.prefetch=0  | ratelimit.prefetch        | at least 1
			ratelimit.limit=5,ratelimit.window=1m,ratelimit.prefetch=6  | ratelimit.prefetch        | at most the rule's smallest limit at once, 5
			ratelimit.limit=5,ratelimit.window=1m,ratelimit.algorithm=sliding-window-log,ratelimit.prefetch=2 | ratelimit.prefetch | use sliding-window-counter
			ratelimit.limit=5,ratelimit.window=1m,ratelimit.concurrency=2,ratelimit.prefetch=2 | ratelimit.prefetch | put the concurrency on a rule of its own
			""")
	void refusesAnInvalidArgNamingItAndTheFix(String given, String arg, String reason) {
		Map<String, Object> filterArgs = new LinkedHashMap<>();
		for (String pair : given.split(",")) {
			filterArgs.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
		}
		assertThatExceptionOfType(InvalidRateLimitRuleException.class).isThrownBy(() -> this.args.rule("orders", filterArgs))
			.satisfies((ex) -> {
				assertThat(ex.getRule()).isEqualTo("orders");
				assertThat(ex.getAttribute()).isEqualTo(arg);
				assertThat(ex.getReason()).contains(reason);
				assertThat(ex.getMessage()).startsWith("Rate-limit rule 'orders': " + arg);
			});
	}

	@Test
	void checksTheFiltersOfTheGatewaysPropertiesThatUseItNamingTheProperty() {
		GatewayProperties gateway = new GatewayProperties();
		RouteDefinition route = new RouteDefinition("orders=http://127.0.0.1:9,Path=/orders/**");
		FilterDefinition ownLimiter = new FilterDefinition("RequestRateLimiter");
		ownLimiter.addArg("rate-limiter", "#{@partnerRateLimiter}");
		FilterDefinition other = new FilterDefinition("StripPrefix=1");
		FilterDefinition ours = new FilterDefinition("RequestRateLimiter");
		ours.addArg("ratelimit.limit", "5");
		ours.addArg("ratelimit.window", "1m");
		route.setFilters(List.of(ownLimiter, other, ours));
		gateway.setRoutes(List.of(route));
		this.args.check(gateway);

		FilterDefinition invalid = new FilterDefinition("RequestRateLimiter");
		invalid.addArg("ratelimit.limit", "5");
		invalid.addArg("ratelimit.window", "0s");
		gateway.setDefaultFilters(List.of(invalid));
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> this.args.check(gateway))
			.satisfies((ex) -> assertThat(ex.getName())
				.isEqualTo("spring.cloud.gateway.server.webflux.default-filters[0].args.ratelimit.window"))
			.withMessageContaining("must be at least 1ms");
	}

	private static Map<String, Object> args(Object... keysAndValues) {
		Map<String, Object> args = new LinkedHashMap<>();
		for (int i = 0; i < keysAndValues.length; i += 2) {
			args.put((String) keysAndValues[i], keysAndValues[i + 1]);
		}
		return args;
	}

}

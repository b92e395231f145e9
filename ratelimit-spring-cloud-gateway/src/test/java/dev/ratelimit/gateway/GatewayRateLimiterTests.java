package dev.ratelimit.gateway;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Mono;

import dev.ratelimit.Algorithm;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real gateway routing to a real backend, both on 127.0.0.1, with ratelimit's rate limiter deciding on the
 * test Redis. Windows are long, so that no test waits for one to pass; each test has keys of its own. The
 * fixed window decides at a time the test holds still, so that the headers' figures are exact however slow
 * the machine; the other algorithms are the starter's own.
 */
class GatewayRateLimiterTests {

	private static Backend backend;

	private static TestGateway gateway;

	@BeforeAll
	static void start() {
		backend = Backend.start();
		Map<String, Object> properties = TestGateway.properties();
		TestGateway.route(properties, backend, "orders", "ratelimit.limit=3", "ratelimit.window=1h");
		TestGateway.route(properties, backend, "search", "ratelimit.limit=2", "ratelimit.window=1h");
		TestGateway.route(properties, backend, "tiered", "ratelimit.limits[0].limit=2", "ratelimit.limits[0].window=1h",
				"ratelimit.limits[1].limit=5", "ratelimit.limits[1].window=1d");
		TestGateway.route(properties, backend, "reports", "ratelimit.limit=5", "ratelimit.window=1h",
				"ratelimit.cost=2");
		TestGateway.route(properties, backend, "log", "ratelimit.algorithm=sliding-window-log", "ratelimit.limit=2",
				"ratelimit.window=1h");
		TestGateway.route(properties, backend, "counter", "ratelimit.algorithm=sliding-window-counter",
				"ratelimit.limit=2", "ratelimit.window=1h");
		TestGateway.route(properties, backend, "bucket", "ratelimit.algorithm=token-bucket", "ratelimit.limit=1",
				"ratelimit.window=1h", "ratelimit.burst=2");
		TestGateway.route(properties, backend, "gcra", "ratelimit.algorithm=GCRA", "ratelimit.limit=1",
				"ratelimit.window=1h", "ratelimit.burst=2");
		TestGateway.route(properties, backend, "lenient", "ratelimit.limit=1", "ratelimit.window=1h",
				"deny-empty-key=false");
		TestGateway.unlimitedRoute(properties, backend, "plain");
		// a rule from properties: the starter's WebFlux filter decides it ahead of the routes
		properties.put("ratelimit.rules.plain.paths", "/plain/**");
		properties.put("ratelimit.rules.plain.limit", "1");
		properties.put("ratelimit.rules.plain.window", "1h");
		gateway = TestGateway.start(properties, FrozenClock.class);
	}

	@AfterAll
	static void stop() {
		gateway.close();
		backend.close();
	}

	@Test
	void letsTheLimitThroughAndRefusesTheNextRequestWithOurHeaders() {
		int reached = backend.requests();
		for (int remaining = 2; remaining >= 0; remaining--) {
			HttpResponse<String> allowed = gateway.get("/orders/1", "refused");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.body()).isEqualTo("backend /orders/1");
			assertThat(allowed.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"orders\";q=3;w=3600");
			assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"orders\";r=" + remaining + ";t=3600");
			assertThat(allowed.headers().firstValue("Retry-After")).isEmpty();
		}
		HttpResponse<String> refused = gateway.get("/orders/1", "refused");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.body()).isEmpty();
		assertThat(refused.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"orders\";q=3;w=3600");
		assertThat(refused.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"orders\";r=0;t=3600");
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("3600");
		assertThat(backend.requests() - reached).as("requests that reached the backend").isEqualTo(3);
	}

	@Test
	void sendsNoneOfTheXRateLimitHeadersOfSpringCloudGatewaysRedisRateLimiter() {
		HttpResponse<String> response = gateway.get("/orders/1", "no-legacy");
		assertThat(response.headers().map().keySet()).noneMatch((name) -> name.toLowerCase().startsWith("x-ratelimit"));
	}

	@Test
	void keepsTheBudgetsOfTwoKeysApart() {
		assertThat(gateway.get("/search/q", "alice").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/search/q", "alice").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/search/q", "alice").statusCode()).isEqualTo(429);
		HttpResponse<String> bob = gateway.get("/search/q", "bob");
		assertThat(bob.statusCode()).isEqualTo(200);
		assertThat(bob.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"search\";r=1;t=3600");
	}

	@Test
	void givesEachRouteItsOwnLimitsAndBudgets() {
		for (int i = 0; i < 2; i++) {
			assertThat(gateway.get("/search/q", "carol").statusCode()).isEqualTo(200);
		}
		assertThat(gateway.get("/search/q", "carol").statusCode()).isEqualTo(429);
		// the same client on another route: its own limit of 3, untouched by the search route
		HttpResponse<String> orders = gateway.get("/orders/1", "carol");
		assertThat(orders.statusCode()).isEqualTo(200);
		assertThat(orders.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"orders\";r=2;t=3600");
	}

	@Test
	void chargesSeveralLimitsAllOrNothing() {
		HttpResponse<String> first = gateway.get("/tiered/a", "dave");
		assertThat(first.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"tiered-1h\";q=2;w=3600, \"tiered-1d\";q=5;w=86400");
		assertThat(first.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"tiered-1h\";r=1;t=3600, \"tiered-1d\";r=4;t=86400");
		assertThat(gateway.get("/tiered/a", "dave").statusCode()).isEqualTo(200);
		for (int i = 0; i < 2; i++) {
			HttpResponse<String> refused = gateway.get("/tiered/a", "dave");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).hasValue("3600");
			// the daily limit would have admitted the request, and was not charged for it
			assertThat(refused.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"tiered-1h\";r=0;t=3600, \"tiered-1d\";r=3;t=86400");
		}
	}

	@Test
	void takesTheCostOfARouteFromEachRequest() {
		assertThat(gateway.get("/reports/r", "erin").headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"reports\";r=3;t=3600");
		assertThat(gateway.get("/reports/r", "erin").headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"reports\";r=1;t=3600");
		HttpResponse<String> refused = gateway.get("/reports/r", "erin");
		assertThat(refused.statusCode()).isEqualTo(429);
		// one permit is left, and a request takes two
		assertThat(refused.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"reports\";r=1;t=3600");
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "orders, fixed", "log, sliding", "counter, sliding-counter", "bucket, token-bucket", "gcra, gcra" })
	void decidesWithTheAlgorithmOfTheRoute(String route, String keySegment) {
		String client = "algorithm-" + route;
		int limit = route.equals("orders") ? 3 : 2;
		for (int i = 0; i < limit; i++) {
			assertThat(gateway.get("/" + route + "/x", client).statusCode()).isEqualTo(200);
		}
		HttpResponse<String> refused = gateway.get("/" + route + "/x", client);
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(RedisTestServer.shared().template().keys(gateway.keyPrefix() + ":" + keySegment + ":*"))
			.contains(gateway.keyPrefix() + ":" + keySegment + ":" + route + ":resolver:" + client);
	}

	@Test
	void decidesWithTheApplicationsLimiterOfAnAlgorithmAndTheStartersOfTheOthers() {
		assertThat(gateway.context().getBean(GatewayRateLimiter.class).rule("orders").algorithm())
			.isEqualTo(Algorithm.FIXED_WINDOW);
		assertThat(gateway.context().getBeansOfType(FixedWindowRateLimiter.class)).containsOnlyKeys("frozenFixedWindow");
		assertThat(gateway.context().getBeansOfType(GcraRateLimiter.class)).containsOnlyKeys("gcraRateLimiter");
	}

	@Test
	void appliesTheRulesOfThePropertiesToTheGatewaysRequestsToo() {
		HttpResponse<String> first = gateway.get("/plain/1", "frank");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"plain\";r=0;t=3600");
		HttpResponse<String> refused = gateway.get("/plain/1", "frank");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("3600");
		assertThat(refused.body()).contains("\"violatedPolicies\":[\"plain\"]");
	}

	@Test
	void goesOnOnTheConnectionsEventLoopOnceRedisHasDecided() {
		FrozenClock.threads.clear();
		assertThat(gateway.get("/search/q", "event-loop").statusCode()).isEqualTo(200);
		// Redis answered on Lettuce's thread; the filters after the rate limiter run on the server's event loop
		assertThat(FrozenClock.threads).singleElement().asString().doesNotContain("lettuce").contains("http");
	}

	@Test
	void refusesARequestWithoutAKeyAsTheFilterDoes() {
		// the KeyResolver finds no X-Client: Spring Cloud Gateway's deny-empty-key answers 403
		assertThat(gateway.get("/orders/1", null).statusCode()).isEqualTo(403);
	}

	@Test
	void refusesARequestWhoseKeyIsBlankAsOneWithoutAKey() {
		// the KeyResolver finds "" or " ": an empty key, not one budget that every such caller shares
		for (int i = 0; i < 4; i++) {
			HttpResponse<String> blank = gateway.get("/orders/1", (i % 2 == 0) ? "" : " ");
			assertThat(blank.statusCode()).isEqualTo(403);
			assertThat(blank.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		assertThat(RedisTestServer.shared().template().keys(gateway.keyPrefix() + ":*:orders:resolver:")).isEmpty();
	}

	@Test
	void letsABlankKeyThroughUnchargedWhereTheRouteAllowsEmptyKeys() {
		// deny-empty-key=false on the route: Spring Cloud Gateway lets requests without a key through
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> blank = gateway.get("/lenient/1", "");
			assertThat(blank.statusCode()).isEqualTo(200);
			assertThat(blank.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		assertThat(gateway.get("/lenient/1", "someone").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/lenient/1", "someone").statusCode()).isEqualTo(429);
	}

	/**
	 * The application's own fixed-window limiter, which replaces the starter's for the routes too.
	 */
	@Configuration(proxyBeanMethods = false)
	static class FrozenClock {

		/** The threads the filter after the rate limiter ran on. */
		static final List<String> threads = new CopyOnWriteArrayList<>();

		@Bean
		ThreadRecorder threadRecorder() {
			return new ThreadRecorder();
		}

		@Bean
		FixedWindowRateLimiter frozenFixedWindow(RedisScriptRunner runner, RateLimitProperties properties) {
			return new FixedWindowRateLimiter(RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner)
				.keyPrefix(properties.getKeyPrefix())
				.clock(Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC))
				.build());
		}

	}

	/**
	 * Records the thread of each request right after the {@code RequestRateLimiter} filter (order 1, the
	 * route's first filter).
	 */
	static class ThreadRecorder implements GlobalFilter, Ordered {

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
			FrozenClock.threads.add(Thread.currentThread().getName());
			return chain.filter(exchange);
		}

		@Override
		public int getOrder() {
			return 2;
		}

	}

}

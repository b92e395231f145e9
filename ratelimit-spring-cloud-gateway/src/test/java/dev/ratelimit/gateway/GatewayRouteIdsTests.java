package dev.ratelimit.gateway;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Routes whose ids differ only in characters a budget's name cannot hold ({@code orders/v1}, {@code orders:v1}) keep
 * budgets of their own on a real gateway, while an id a name can hold keeps its budget's name (and so its key in
 * Redis); routes that would still charge one budget without saying so stop startup, naming both.
 */
class GatewayRouteIdsTests {

	private static final int LIMIT = 3;

	private static Backend backend;

	private static TestGateway gateway;

	@BeforeAll
	static void start() {
		backend = Backend.start();
		Map<String, Object> properties = TestGateway.properties();
		for (String id : new String[] { "orders/v1", "orders:v1", "orders_v1" }) {
			TestGateway.route(properties, backend, id, "ratelimit.limit=" + LIMIT, "ratelimit.window=1h");
		}
		gateway = TestGateway.start(properties);
	}

	@AfterAll
	static void stop() {
		gateway.close();
		backend.close();
	}

	@Test
	void routesWhoseIdsReadAlikeOnceReplacedGetABudgetEach() {
		for (String path : new String[] { "/orders/v1/x", "/orders:v1/x", "/orders_v1/x" }) {
			for (int i = 0; i < LIMIT; i++) {
				assertThat(gateway.get(path, "ann").statusCode()).as(path + " call " + (i + 1)).isEqualTo(200);
			}
			assertThat(gateway.get(path, "ann").statusCode()).as(path + " past its limit").isEqualTo(429);
		}
	}

	@Test
	void anIdANameCanHoldKeepsItsBudgetsNameAndTheOthersAreFingerprinted() {
		HttpResponse<String> plain = gateway.get("/orders_v1/y", "bob");
		assertThat(plain.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"orders_v1\";q=3;w=3600");
		assertThat(RouteArgs.policyName("orders_v1")).isEqualTo("orders_v1");
		assertThat(RouteArgs.policyName("orders/v1")).matches("orders_v1-[0-9a-f]{12}");
		assertThat(RouteArgs.policyName("orders:v1")).matches("orders_v1-[0-9a-f]{12}")
			.isNotEqualTo(RouteArgs.policyName("orders/v1"));
		assertThat(RouteArgs.policyName("x".repeat(100))).isEqualTo("x".repeat(100));
		assertThat(RouteArgs.policyName("x".repeat(101))).hasSize(100)
			.isNotEqualTo(RouteArgs.policyName("x".repeat(102)));
		HttpResponse<String> replaced = gateway.get("/orders/v1/y", "bob");
		assertThat(replaced.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"" + RouteArgs.policyName("orders/v1") + "\";q=3;w=3600");
	}

	@Test
	void aRouteThatWouldChargeAnothersBudgetUnsaidStopsStartupNamingBoth() {
		Map<String, Object> properties = TestGateway.properties();
		TestGateway.route(properties, backend, "search-a", "ratelimit.budget=search", "ratelimit.limit=3",
				"ratelimit.window=1h");
		TestGateway.route(properties, backend, "search", "ratelimit.limit=3", "ratelimit.window=1h");
		assertThatThrownBy(() -> TestGateway.start(properties).close())
			.hasRootCauseInstanceOf(InvalidConfigurationPropertyValueException.class)
			.rootCause()
			.hasMessageContaining(TestGateway.ROUTES + "[1].id")
			.hasMessageContaining("routes 'search-a' and 'search' would charge one budget, 'search'")
			.hasMessageContaining("both ratelimit.budget=search");
	}

}

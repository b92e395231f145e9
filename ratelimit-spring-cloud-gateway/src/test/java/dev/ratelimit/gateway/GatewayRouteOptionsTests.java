package dev.ratelimit.gateway;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimitPlanResolver;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What property rules accept, as route args of a real gateway: plans per key ({@code ratelimit.plan},
 * {@code ratelimit.plans.<plan>.*}), a budget several routes share ({@code ratelimit.budget}), the actual cost the
 * backend's answer tells ({@code ratelimit.cost-from}), and permits taken in batches ({@code ratelimit.prefetch}).
 */
class GatewayRouteOptionsTests {

	private static Backend backend;

	private static TestGateway gateway;

	@BeforeAll
	static void start() {
		backend = Backend.start();
		Map<String, Object> properties = TestGateway.properties();
		TestGateway.route(properties, backend, "tiers", "ratelimit.limit=1", "ratelimit.window=1h",
				"ratelimit.plan=bean:tiers", "ratelimit.plans.pro.limit=3", "ratelimit.plans.pro.window=1h");
		TestGateway.route(properties, backend, "search-a", "ratelimit.budget=search", "ratelimit.limit=3",
				"ratelimit.window=1h");
		TestGateway.route(properties, backend, "search-b", "ratelimit.budget=search", "ratelimit.limit=3",
				"ratelimit.window=1h");
		TestGateway.route(properties, backend, "chat", "ratelimit.limit=1000", "ratelimit.window=1d", "ratelimit.cost=100",
				"ratelimit.cost-from=header:X-Tokens-Used");
		TestGateway.route(properties, backend, "hot", "ratelimit.limit=5", "ratelimit.window=1h", "ratelimit.prefetch=2");
		gateway = TestGateway.start(properties, Plans.class);
	}

	@AfterAll
	static void stop() {
		gateway.close();
		backend.close();
	}

	@Test
	void givesEachKeyTheLimitsOfItsPlan() {
		assertThat(gateway.get("/tiers/x", "free-1").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/tiers/x", "free-1").statusCode()).isEqualTo(429);
		for (int i = 0; i < 3; i++) {
			assertThat(gateway.get("/tiers/x", "pro-1").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> refused = gateway.get("/tiers/x", "pro-1");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"tiers\";q=3;w=3600");
	}

	@Test
	void spendsBatchesOfPermitsAdmittingExactlyTheLimitWithTruthfulHeaders() {
		java.util.List<String> remaining = new java.util.ArrayList<>();
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> answer = gateway.get("/hot/x", "fay");
			assertThat(answer.statusCode()).isEqualTo(200);
			remaining.add(answer.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow());
		}
		// a batch of 2: Redis left 3, one held; topped up by 2 once none is held: Redis left 1, two held; a top-up
		// refused, the last permit alone; each request told what Redis left and what the instance holds
		// the window opened by the first request: its reset counts down from an hour while the test runs
		assertThat(remaining).allSatisfy((header) -> assertThat(header).matches("\"hot\";r=\\d;t=(3600|3599|3598)"));
		assertThat(remaining.stream().map((header) -> header.substring(0, header.indexOf(";t=")))).containsExactly(
				"\"hot\";r=4", "\"hot\";r=3", "\"hot\";r=2", "\"hot\";r=1", "\"hot\";r=0");
		assertThat(gateway.get("/hot/x", "fay").statusCode()).isEqualTo(429);
	}

	@Test
	void chargesRoutesThatShareABudgetOneBudgetPerKey() {
		assertThat(gateway.get("/search-a/x", "carl").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/search-b/x", "carl").statusCode()).isEqualTo(200);
		HttpResponse<String> third = gateway.get("/search-a/x", "carl");
		assertThat(third.statusCode()).isEqualTo(200);
		assertThat(third.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValueSatisfying((value) -> assertThat(value)
			.startsWith("\"search\";r=0;"));
		assertThat(gateway.get("/search-b/x", "carl").statusCode()).isEqualTo(429);
		assertThat(gateway.get("/search-b/x", "dora").statusCode()).isEqualTo(200);
	}

	@Test
	void chargesTheTokensTheBackendTellsAndKeepsTheHeaderFromTheClient() {
		HttpResponse<String> first = gateway.get("/chat/x?tokens=30", "erin");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValueSatisfying((value) -> assertThat(value)
			.startsWith("\"chat\";r=900;"));
		assertThat(first.headers().firstValue("X-Tokens-Used")).isEmpty();
		// settled before the answer was committed: 1000 - 30, then this request's reservation
		HttpResponse<String> second = gateway.get("/chat/x?tokens=2000", "erin");
		assertThat(second.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValueSatisfying((value) -> assertThat(value)
			.startsWith("\"chat\";r=870;"));
		await().atMost(Duration.ofSeconds(10)).until(() -> gateway.get("/chat/x?tokens=1", "erin").statusCode() == 429);
	}

	@Test
	void keepsTheReservationOfAnAnswerWhoseCostIsOutOfRange() {
		// past RateLimiter.MAX_COST (2^53 - 1), and Long.MAX_VALUE: neither is a cost the scripts take exactly
		assertThat(gateway.get("/chat/x?tokens=9007199254740992", "fern").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/chat/x?tokens=9223372036854775807", "fern").statusCode()).isEqualTo(200);
		// settled before each answer was committed: both reservations of 100 stand, and this request reserves its own
		HttpResponse<String> third = gateway.get("/chat/x?tokens=1", "fern");
		assertThat(third.statusCode()).isEqualTo(200);
		assertThat(third.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValueSatisfying((value) -> assertThat(value)
			.startsWith("\"chat\";r=700;"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Plans {

		@Bean
		RateLimitPlanResolver tiers() {
			return (rule, key) -> key.startsWith("pro-") ? "pro" : null;
		}

	}

}

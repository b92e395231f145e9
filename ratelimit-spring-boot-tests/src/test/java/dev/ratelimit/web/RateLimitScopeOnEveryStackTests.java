package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;

import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.web.reactive.ReactiveRateLimitCondition;
import dev.ratelimit.web.servlet.RateLimitCondition;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a rule applies to, on every stack: its excluded paths are never charged, its condition bean (each stack's
 * own kind) keeps it from the requests it says no to, and a condition that fails counts as applying.
 */
class RateLimitScopeOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.ofEntries(Map.entry("ratelimit.rules.api.paths", "/api/**"),
			Map.entry("ratelimit.rules.api.exclude-paths", "/api/health"), Map.entry("ratelimit.rules.api.limit", "1"),
			Map.entry("ratelimit.rules.api.window", "1m"), Map.entry("ratelimit.rules.outside.paths", "/open"),
			Map.entry("ratelimit.rules.outside.limit", "1"), Map.entry("ratelimit.rules.outside.window", "1m"),
			Map.entry("ratelimit.rules.outside.condition", "bean:externalOnly"),
			Map.entry("ratelimit.rules.strict.paths", "/keyed"), Map.entry("ratelimit.rules.strict.limit", "1"),
			Map.entry("ratelimit.rules.strict.window", "1m"),
			Map.entry("ratelimit.rules.strict.condition", "bean:brokenCondition")),
			(stack) -> new Class<?>[] {
					(stack == WebStack.SERVLET) ? ServletConditions.class : ReactiveConditions.class });

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void neverChargesAnExcludedPath(WebStack stack) {
		StackApp app = apps.on(stack);
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 3; i++) {
			StackApp.Reply health = app.get("/api/health");
			assertThat(health.status()).isEqualTo(200);
			assertThat(health.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
		assertThat(app.get("/api/items").status()).isEqualTo(200);
		assertThat(app.get("/api/items").status()).isEqualTo(429);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void skipsTheRuleWhereItsConditionSaysSo(WebStack stack) {
		StackApp app = apps.on(stack);
		for (int i = 0; i < 3; i++) {
			StackApp.Reply internal = app.get("/open", "X-Internal", "yes");
			assertThat(internal.status()).isEqualTo(200);
			assertThat(internal.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		assertThat(app.get("/open").status()).isEqualTo(200);
		assertThat(app.get("/open").status()).isEqualTo(429);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void appliesTheRuleWhenItsConditionFails(WebStack stack) {
		StackApp app = apps.on(stack);
		assertThat(app.get("/keyed").status()).isEqualTo(200);
		assertThat(app.get("/keyed").status()).isEqualTo(429);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class ServletConditions {

		@Bean
		RateLimitCondition externalOnly() {
			return (request) -> !"yes".equals(request.getHeader("X-Internal"));
		}

		@Bean
		RateLimitCondition brokenCondition() {
			return (request) -> {
				throw new IllegalStateException("a condition with a bug");
			};
		}

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class ReactiveConditions {

		@Bean
		ReactiveRateLimitCondition externalOnly() {
			return (exchange) -> Mono.just(!"yes".equals(exchange.getRequest().getHeaders().getFirst("X-Internal")));
		}

		@Bean
		ReactiveRateLimitCondition brokenCondition() {
			return (exchange) -> Mono.error(new IllegalStateException("a condition with a bug"));
		}

	}

}

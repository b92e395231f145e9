package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.actuate.RateLimitDescriptors;
import dev.ratelimit.actuate.RateLimitEndpoint;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Allow and deny lists of client addresses and a rule's exempt keys, on every stack: a denied address is refused
 * with 403 before any rule, an allowed one skips every rule, an exempt key its rule, none of them calling Redis.
 */
class RateLimitAddressListsOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.ofEntries(
			Map.entry("management.endpoints.web.exposure.include", "ratelimit"),
			Map.entry("ratelimit.trusted-proxies", "127.0.0.1"), Map.entry("ratelimit.allow.addresses", "10.0.0.0/8"),
			Map.entry("ratelimit.deny.addresses", "203.0.113.0/24,10.6.6.6"),
			Map.entry("ratelimit.rules.api.paths", "/address"), Map.entry("ratelimit.rules.api.limit", "1"),
			Map.entry("ratelimit.rules.api.window", "1m"), Map.entry("ratelimit.rules.keyed.paths", "/keyed"),
			Map.entry("ratelimit.rules.keyed.limit", "1"), Map.entry("ratelimit.rules.keyed.window", "1m"),
			Map.entry("ratelimit.rules.keyed.key", "header:X-Api-Key"),
			Map.entry("ratelimit.rules.keyed.allow-keys", "internal-1,internal-2")));

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void refusesADeniedAddressWith403BeforeAnyRule(WebStack stack) {
		StackApp app = apps.on(stack);
		long before = RedisTestServer.shared().scriptCalls();
		for (String path : new String[] { "/address", "/open" }) {
			StackApp.Reply denied = app.get(path, "X-Forwarded-For", "203.0.113.9");
			assertThat(denied.status()).isEqualTo(403);
			assertThat(denied.header("Content-Type")).hasValue("application/problem+json");
			assertThat((Integer) JsonPath.read(denied.body(), "$.status")).isEqualTo(403);
			assertThat(denied.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		// denied although its block is allowed: the deny list wins
		assertThat(app.get("/open", "X-Forwarded-For", "10.6.6.6").status()).isEqualTo(403);
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void letsAnAllowedAddressSkipEveryRuleWithoutCallingRedis(WebStack stack) {
		StackApp app = apps.on(stack);
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 5; i++) {
			StackApp.Reply allowed = app.get("/address", "X-Forwarded-For", "10.1.2.3");
			assertThat(allowed.status()).isEqualTo(200);
			assertThat(allowed.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
		// anyone else meets the rule
		assertThat(app.get("/address", "X-Forwarded-For", "198.51.100.7").status()).isEqualTo(200);
		assertThat(app.get("/address", "X-Forwarded-For", "198.51.100.7").status()).isEqualTo(429);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void exemptsTheKeysARuleAllows(WebStack stack) {
		StackApp app = apps.on(stack);
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 3; i++) {
			StackApp.Reply internal = app.get("/keyed", "X-Api-Key", "internal-1");
			assertThat(internal.status()).isEqualTo(200);
			assertThat(internal.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
		assertThat(app.get("/keyed", "X-Api-Key", "customer").status()).isEqualTo(200);
		assertThat(app.get("/keyed", "X-Api-Key", "customer").status()).isEqualTo(429);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void showsTheListsThroughTheEndpoint(WebStack stack) {
		RateLimitDescriptors.RulesDescriptor rules = apps.on(stack).context().getBean(RateLimitEndpoint.class).rules();
		assertThat(rules.allowedAddresses()).containsExactly("10.0.0.0/8");
		assertThat(rules.deniedAddresses()).containsExactly("203.0.113.0/24", "10.6.6.6");
		assertThat(rules.rules()).filteredOn((rule) -> rule.name().equals("keyed"))
			.singleElement()
			.satisfies((rule) -> assertThat(rule.allowKeys()).isEqualTo(2));
	}

}

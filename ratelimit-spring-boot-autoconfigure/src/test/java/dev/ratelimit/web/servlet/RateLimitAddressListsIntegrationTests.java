package dev.ratelimit.web.servlet;

import java.net.http.HttpResponse;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import dev.ratelimit.actuate.RateLimitDescriptors;
import dev.ratelimit.actuate.RateLimitEndpoint;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Allow and deny lists of client addresses, and key values a rule exempts, on Tomcat and a real Redis.
 * The test client is a trusted proxy, so that X-Forwarded-For names the client address.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=ratelimit", "ratelimit.trusted-proxies=127.0.0.1",
				"ratelimit.allow.addresses=10.0.0.0/8",
				"ratelimit.deny.addresses=203.0.113.0/24,10.6.6.6", "ratelimit.rules.api.paths=/api/**",
				"ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m", "ratelimit.rules.keyed.paths=/keyed",
				"ratelimit.rules.keyed.limit=1", "ratelimit.rules.keyed.window=1m",
				"ratelimit.rules.keyed.key=header:X-Api-Key", "ratelimit.rules.keyed.allow-keys=internal-1,internal-2" })
class RateLimitAddressListsIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private RateLimitEndpoint endpoint;

	@Test
	void refusesADeniedAddressWith403BeforeAnyRule() throws Exception {
		long before = RedisTestServer.shared().scriptCalls();
		for (String path : new String[] { "/api/items", "/open" }) {
			HttpResponse<String> denied = get(this.port, path, "X-Forwarded-For", "203.0.113.9");
			assertThat(denied.statusCode()).isEqualTo(403);
			assertThat(denied.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat((Integer) JsonPath.read(denied.body(), "$.status")).isEqualTo(403);
			assertThat(denied.headers().firstValue("RateLimit")).isEmpty();
		}
		// denied although its block is allowed: the deny list wins
		assertThat(get(this.port, "/open", "X-Forwarded-For", "10.6.6.6").statusCode()).isEqualTo(403);
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
	}

	@Test
	void letsAnAllowedAddressSkipEveryRuleWithoutCallingRedis() throws Exception {
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> allowed = get(this.port, "/api/items", "X-Forwarded-For", "10.1.2.3");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().firstValue("RateLimit")).isEmpty();
		}
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
		// anyone else meets the rule
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "198.51.100.7").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "198.51.100.7").statusCode()).isEqualTo(429);
	}

	@Test
	void exemptsTheKeysARuleAllows() throws Exception {
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> internal = get(this.port, "/keyed", "X-Api-Key", "internal-1");
			assertThat(internal.statusCode()).isEqualTo(200);
			assertThat(internal.headers().firstValue("RateLimit")).isEmpty();
		}
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
		assertThat(get(this.port, "/keyed", "X-Api-Key", "customer").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/keyed", "X-Api-Key", "customer").statusCode()).isEqualTo(429);
	}

	@Test
	void showsTheListsThroughTheEndpoint() {
		RateLimitDescriptors.RulesDescriptor rules = this.endpoint.rules();
		assertThat(rules.allowedAddresses()).containsExactly("10.0.0.0/8");
		assertThat(rules.deniedAddresses()).containsExactly("203.0.113.0/24", "10.6.6.6");
		assertThat(rules.rules()).filteredOn((rule) -> rule.name().equals("keyed"))
			.singleElement()
			.satisfies((rule) -> assertThat(rule.allowKeys()).isEqualTo(2));
	}

}

package dev.ratelimit.web.reactive;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.reactive.RateLimitWebFluxTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Allow and deny lists and a rule's exempt keys on Netty, as on the servlet stack.
 */
@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { RateLimitWebFluxTestApplication.REACTIVE, RateLimitWebFluxTestApplication.LOOPBACK,
				"ratelimit.trusted-proxies=127.0.0.1", "ratelimit.allow.addresses=10.0.0.0/8",
				"ratelimit.deny.addresses=203.0.113.0/24", "ratelimit.rules.api.paths=/api/**",
				"ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m", "ratelimit.rules.me.paths=/me",
				"ratelimit.rules.me.limit=1", "ratelimit.rules.me.window=1m", "ratelimit.rules.me.key=principal",
				"ratelimit.rules.me.allow-keys=ops" })
class RateLimitWebFluxAddressListsIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitWebFluxTestApplication.register(registry);
	}

	@Test
	void deniesAllowsAndExemptsWithoutCallingRedis() throws Exception {
		long before = RedisTestServer.shared().scriptCalls();
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(403);
		assertThat(get(this.port, "/open", "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(403);
		for (int i = 0; i < 3; i++) {
			assertThat(get(this.port, "/api/items", "X-Forwarded-For", "10.1.2.3").statusCode()).isEqualTo(200);
			assertThat(get(this.port, "/me", "X-User", "ops").statusCode()).isEqualTo(200);
		}
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "198.51.100.7").statusCode()).isEqualTo(200);
		HttpResponse<String> refused = get(this.port, "/api/items", "X-Forwarded-For", "198.51.100.7");
		assertThat(refused.statusCode()).isEqualTo(429);
	}

}

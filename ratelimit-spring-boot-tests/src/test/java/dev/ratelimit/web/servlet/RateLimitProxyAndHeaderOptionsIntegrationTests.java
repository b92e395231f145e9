package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test client as a trusted proxy, the IETF headers off and the legacy ones on.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.trusted-proxies=127.0.0.0/8,10.0.0.0/8", "ratelimit.headers.enabled=false",
				"ratelimit.headers.legacy=true", "ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=2",
				"ratelimit.rules.api.window=1m" })
class RateLimitProxyAndHeaderOptionsIntegrationTests extends RedisBackedWebTests {

	@Test
	void chargesTheForwardedClientOfATrustedProxy() throws Exception {
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "203.0.113.1").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "203.0.113.1").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "203.0.113.1").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "203.0.113.2").statusCode()).isEqualTo(200);
		assertThat(this.redis.hasKey(this.prefix + ":fixed:api:ip:203.0.113.1")).isTrue();
	}

	@Test
	void takesTheRightMostAddressThatIsNotATrustedProxy() throws Exception {
		// the left-most entry is whatever the client sent; the proxies appended the rest
		get(this.port, "/api/items", "X-Forwarded-For", "6.6.6.6, 203.0.113.9, 10.1.2.3");
		assertThat(this.redis.hasKey(this.prefix + ":fixed:api:ip:203.0.113.9")).isTrue();
		assertThat(this.redis.hasKey(this.prefix + ":fixed:api:ip:6.6.6.6")).isFalse();
		// the proxies write X-Forwarded-For (the default): a Forwarded header is the client's own
		get(this.port, "/api/items", "Forwarded", "for=\"[2001:db8::17]:4711\";proto=https");
		assertThat(this.redis.hasKey(this.prefix + ":fixed:api:ip:127.0.0.1")).isTrue();
	}

	@Test
	void fallsBackToTheRemoteAddressForAMalformedHeader() throws Exception {
		get(this.port, "/api/items", "X-Forwarded-For", "203.0.113.1, not-an-address, 10.0.0.7");
		assertThat(this.redis.hasKey(this.prefix + ":fixed:api:ip:127.0.0.1")).isTrue();
		assertThat(this.redis.keys(this.prefix + ":*")).hasSize(1);
	}

	@Test
	void sendsTheLegacyHeadersInsteadOfTheIetfOnes() throws Exception {
		HttpResponse<String> first = get(this.port, "/api/items");
		assertThat(first.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		assertThat(first.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
		assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
		assertThat(first.headers().firstValue("X-RateLimit-Reset")).hasValue("60");
		get(this.port, "/api/items");
		HttpResponse<String> rejected = get(this.port, "/api/items");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
		assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
	}

}

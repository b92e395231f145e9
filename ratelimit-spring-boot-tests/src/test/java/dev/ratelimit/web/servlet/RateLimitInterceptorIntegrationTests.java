package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static dev.ratelimit.web.servlet.RateLimitTestApplication.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests through a real servlet container to a real Redis.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.methods=GET",
				"ratelimit.rules.api.limit=3", "ratelimit.rules.api.window=1m",
				"ratelimit.rules.keyed.paths=/keyed", "ratelimit.rules.keyed.limit=2",
				"ratelimit.rules.keyed.window=1m", "ratelimit.rules.keyed.key=header:X-Api-Key",
				"ratelimit.rules.by-param.paths=/param", "ratelimit.rules.by-param.limit=1",
				"ratelimit.rules.by-param.window=1m", "ratelimit.rules.by-param.key=param:user",
				"ratelimit.rules.by-principal.paths=/me", "ratelimit.rules.by-principal.limit=1",
				"ratelimit.rules.by-principal.window=1m", "ratelimit.rules.by-principal.key=principal",
				"ratelimit.rules.by-tenant.paths=/tenant", "ratelimit.rules.by-tenant.limit=1",
				"ratelimit.rules.by-tenant.window=1m", "ratelimit.rules.by-tenant.key=bean:tenantResolver",
				"ratelimit.rules.sliding.paths=/sliding", "ratelimit.rules.sliding.limit=2",
				"ratelimit.rules.sliding.window=10s", "ratelimit.rules.sliding.algorithm=sliding-window-log",
				"ratelimit.rules.wide.paths=/multi/**", "ratelimit.rules.wide.limit=10",
				"ratelimit.rules.wide.window=1m", "ratelimit.rules.narrow.paths=/multi/narrow",
				"ratelimit.rules.narrow.limit=1", "ratelimit.rules.narrow.window=1m",
				"ratelimit.rules.costly.paths=/costly", "ratelimit.rules.costly.limit=5",
				"ratelimit.rules.costly.window=1m", "ratelimit.rules.costly.cost=2",
				"ratelimit.rules.exploding.paths=/exploding", "ratelimit.rules.exploding.limit=1",
				"ratelimit.rules.exploding.window=1m", "ratelimit.rules.exploding.key=bean:explodingResolver" })
class RateLimitInterceptorIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private RateLimitTestApplication.Endpoints endpoints;

	@BeforeEach
	void resetCounter() {
		this.endpoints.itemsServed.set(0);
	}

	@Test
	void rejectsTheRequestAfterTheLimitWithAProblemAndRetryAfter() throws Exception {
		for (int remaining = 2; remaining >= 0; remaining--) {
			HttpResponse<String> allowed = get(this.port, "/api/items");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.body()).isEqualTo("items");
			assertThat(allowed.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"api\";q=3;w=60");
			// the window opened with the first request: 60 seconds, or 59 and a fraction rounded up
			assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.matches("\"api\";r=" + remaining + ";t=(59|60)");
		}
		HttpResponse<String> rejected = get(this.port, "/api/items");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		long retryAfter = Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(1L, 60L);
		assertThat(rejected.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"api\";q=3;w=60");
		assertThat(rejected.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"api\";r=0;t=" + retryAfter);
		String body = rejected.body();
		assertThat((String) JsonPath.read(body, "$.type")).isEqualTo("about:blank");
		assertThat((String) JsonPath.read(body, "$.title")).isEqualTo("Too Many Requests");
		assertThat((Integer) JsonPath.read(body, "$.status")).isEqualTo(429);
		assertThat((String) JsonPath.read(body, "$.detail"))
			.isEqualTo("Rate limit 'api' of 3 per minute exceeded; retry after " + retryAfter + " seconds.");
		assertThat((String) JsonPath.read(body, "$.instance")).isEqualTo("/api/items");
		assertThat((List<String>) JsonPath.read(body, "$.violatedPolicies")).containsExactly("api");
		assertThat(this.endpoints.itemsServed).hasValue(3);
	}

	@Test
	void refusesAFloodFromOneClientWithoutCallingRedisAgain() throws Exception {
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 4; i++) {
			get(this.port, "/api/items");
		}
		long started = System.nanoTime();
		for (int i = 0; i < 100; i++) {
			HttpResponse<String> refused = get(this.port, "/api/items");
			// the minute keeps running while the hundred requests are sent, for seconds on a loaded machine
			long lowest = 57 - TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
			assertThat(refused.statusCode()).isEqualTo(429);
			String rateLimit = refused.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow();
			assertThat(rateLimit).startsWith("\"api\";r=0;t=");
			assertThat(Long.parseLong(rateLimit.substring(rateLimit.indexOf("t=") + 2))).isBetween(lowest, 60L);
			assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isBetween(lowest, 60L);
		}
		// four decisions by Redis (three grants and the first refusal), a hundred from memory
		assertThat(RedisTestServer.shared().scriptCalls() - before).isEqualTo(4);
		assertThat(this.endpoints.itemsServed).hasValue(3);
	}

	@Test
	void chargesARequestWhoseKeyResolverFailsUnderItsClientAddress() throws Exception {
		// not a 500, and not unlimited either: the failure mode is for Redis failing, not for requests
		assertThat(get(this.port, "/exploding").statusCode()).isEqualTo(200);
		HttpResponse<String> refused = get(this.port, "/exploding");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(this.redis.keys(this.prefix + ":*:exploding:ip:127.0.0.1")).hasSize(1);
	}

	@Test
	void leavesOtherPathsAndMethodsUntouched() throws Exception {
		for (int i = 0; i < 4; i++) {
			get(this.port, "/api/items");
		}
		HttpResponse<String> post = send(this.port, "POST", "/api/items");
		assertThat(post.statusCode()).isEqualTo(200);
		assertThat(post.body()).isEqualTo("created");
		assertThat(post.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		HttpResponse<String> open = get(this.port, "/open");
		assertThat(open.statusCode()).isEqualTo(200);
		assertThat(open.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		assertThat(open.headers().firstValue("X-RateLimit-Limit")).isEmpty();
	}

	@Test
	void countsHeadRequestsAgainstAGetRule() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(send(this.port, "HEAD", "/api/items").statusCode()).isEqualTo(200);
		}
		assertThat(send(this.port, "HEAD", "/api/items").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
	}

	@Test
	void givesTwoApiKeysSeparateBudgets() throws Exception {
		assertThat(get(this.port, "/keyed", "X-Api-Key", "key-a").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/keyed", "X-Api-Key", "key-a").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/keyed", "X-Api-Key", "key-a").statusCode()).isEqualTo(429);
		HttpResponse<String> other = get(this.port, "/keyed", "X-Api-Key", "key-b");
		assertThat(other.statusCode()).isEqualTo(200);
		assertThat(other.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"keyed\";r=1;t=60");
		// without the header the request is charged under its client address, apart from every key
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(200);
		// a key that spells the client address does not reach the address's budget
		assertThat(get(this.port, "/keyed", "X-Api-Key", "127.0.0.1").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(429);
	}

	@Test
	void keepsHostileApiKeysInBudgetsOfTheirOwnWithBoundedKeys() throws Exception {
		List<String> hostile = List.of("a:b", "{slot}", "*", "key\twith\ttabs", "ip:127.0.0.1", "x".repeat(7_000),
				"y".repeat(7_000), "%00%0d%0a");
		for (String value : hostile) {
			assertThat(get(this.port, "/keyed", "X-Api-Key", value).statusCode()).as(value).isEqualTo(200);
			assertThat(get(this.port, "/keyed", "X-Api-Key", value).statusCode()).as(value).isEqualTo(200);
			assertThat(get(this.port, "/keyed", "X-Api-Key", value).statusCode()).as(value).isEqualTo(429);
		}
		// and the client address, which one of them spells, still has its own budget
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(200);
		var keys = this.redis.keys(this.prefix + ":*");
		assertThat(keys).hasSize(hostile.size() + 1)
			.allSatisfy((key) -> assertThat(key).hasSizeLessThanOrEqualTo(200).doesNotContain("{", "}", "*", "\t"));
	}

	@Test
	void ignoresForwardedForFromAnUntrustedAddress() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get(this.port, "/api/items", "X-Forwarded-For", "203.0.113." + i).statusCode()).isEqualTo(200);
		}
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "198.51.100.7").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/api/items", "Forwarded", "for=198.51.100.8").statusCode()).isEqualTo(429);
	}

	@Test
	void limitsAnAnnotatedHandler() throws Exception {
		HttpResponse<String> first = get(this.port, "/annotated");
		assertThat(first.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"Endpoints.annotated\";q=2;w=60");
		assertThat(get(this.port, "/annotated").statusCode()).isEqualTo(200);
		HttpResponse<String> rejected = get(this.port, "/annotated");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat((List<String>) JsonPath.read(rejected.body(), "$.violatedPolicies"))
			.containsExactly("Endpoints.annotated");
	}

	@Test
	void appliesEveryAnnotationOfAHandler() throws Exception {
		HttpResponse<String> first = get(this.port, "/annotated/twice", "X-Api-Key", "k1");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"per-minute\";q=5;w=60, \"per-hour\";q=1;w=3600");
		assertThat(first.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"per-minute\";r=4;t=60, \"per-hour\";r=0;t=3600");
		HttpResponse<String> second = get(this.port, "/annotated/twice", "X-Api-Key", "k1");
		assertThat(second.statusCode()).isEqualTo(429);
		assertThat((List<String>) JsonPath.read(second.body(), "$.violatedPolicies")).containsExactly("per-hour");
		assertThat(get(this.port, "/annotated/twice", "X-Api-Key", "k2").statusCode()).isEqualTo(200);
	}

	@Test
	void sharesAClassLevelBudgetAcrossTheClassesHandlers() throws Exception {
		assertThat(get(this.port, "/shared/a").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/shared/b").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/shared/a").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/shared/b").statusCode()).isEqualTo(429);
	}

	@Test
	void keysByQueryParameterPrincipalAndResolverBean() throws Exception {
		assertThat(get(this.port, "/param?user=ann").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/param?user=ann").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/param?user=bob").statusCode()).isEqualTo(200);

		assertThat(get(this.port, "/me", "X-User", "alice").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/me", "X-User", "alice").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/me", "X-User", "bruno").statusCode()).isEqualTo(200);

		assertThat(get(this.port, "/tenant", "X-Tenant", "acme").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/tenant", "X-Tenant", "acme").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/tenant", "X-Tenant", "globex").statusCode()).isEqualTo(200);
	}

	@Test
	void usesTheAlgorithmARuleNames() throws Exception {
		assertThat(get(this.port, "/sliding").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/sliding").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/sliding").statusCode()).isEqualTo(429);
		assertThat(this.redis.keys(this.prefix + ":sliding:*")).hasSize(1);
	}

	@Test
	void passesOnlyWhenEveryMatchingRuleAllows() throws Exception {
		HttpResponse<String> first = get(this.port, "/multi/narrow");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"wide\";q=10;w=60, \"narrow\";q=1;w=60");
		assertThat(first.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"wide\";r=9;t=60, \"narrow\";r=0;t=60");
		HttpResponse<String> second = get(this.port, "/multi/narrow");
		assertThat(second.statusCode()).isEqualTo(429);
		assertThat((List<String>) JsonPath.read(second.body(), "$.violatedPolicies")).containsExactly("narrow");
	}

	@Test
	void chargesTheCostOfARule() throws Exception {
		assertThat(get(this.port, "/costly").headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"costly\";r=3;t=60");
		assertThat(get(this.port, "/costly").headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.matches("\"costly\";r=1;t=(59|60)");
		HttpResponse<String> rejected = get(this.port, "/costly");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"costly\";r=1;t=" + rejected.headers()
			.firstValue("Retry-After")
			.orElseThrow());
	}

}

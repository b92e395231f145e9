package dev.ratelimit.web.reactive;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.reactive.RateLimitWebFluxTestApplication.get;
import static dev.ratelimit.web.reactive.RateLimitWebFluxTestApplication.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules on a real Netty server and a real Redis, as for the servlet stack: refusals with problem
 * bodies and headers counting down, keys kept apart, forwarding headers of untrusted clients ignored,
 * annotated handlers, principals and reactive key resolvers, and no blocking Redis call anywhere.
 */
@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { RateLimitWebFluxTestApplication.REACTIVE, RateLimitWebFluxTestApplication.LOOPBACK,
				"management.endpoints.web.exposure.include=ratelimit",
				"ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.methods=GET", "ratelimit.rules.api.limit=3",
				"ratelimit.rules.api.window=1m",
				"ratelimit.rules.keyed.paths=/keyed", "ratelimit.rules.keyed.limit=2", "ratelimit.rules.keyed.window=1m",
				"ratelimit.rules.keyed.key=header:X-Api-Key", "ratelimit.rules.keyed.plan=bean:planResolver",
				"ratelimit.rules.keyed.plans.pro.limit=4", "ratelimit.rules.keyed.plans.pro.window=1m",
				"ratelimit.rules.address.paths=/address", "ratelimit.rules.address.limit=2",
				"ratelimit.rules.address.window=1m",
				"ratelimit.rules.param.paths=/param", "ratelimit.rules.param.limit=1", "ratelimit.rules.param.window=1m",
				"ratelimit.rules.param.key=param:account",
				"ratelimit.rules.tenant.paths=/tenant", "ratelimit.rules.tenant.limit=1", "ratelimit.rules.tenant.window=1m",
				"ratelimit.rules.tenant.key=bean:tenantResolver",
				"ratelimit.rules.me.paths=/me", "ratelimit.rules.me.limit=1", "ratelimit.rules.me.window=1m",
				"ratelimit.rules.me.key=principal",
				"ratelimit.rules.exploding.paths=/exploding", "ratelimit.rules.exploding.limit=1",
				"ratelimit.rules.exploding.window=1m", "ratelimit.rules.exploding.key=bean:explodingResolver",
				"ratelimit.rules.shadowed.paths=/shadowed", "ratelimit.rules.shadowed.limit=1",
				"ratelimit.rules.shadowed.window=1m", "ratelimit.rules.shadowed.shadow=true",
				"ratelimit.rules.both-narrow.paths=/both", "ratelimit.rules.both-narrow.limit=2",
				"ratelimit.rules.both-narrow.window=1m", "ratelimit.rules.both-wide.paths=/both",
				"ratelimit.rules.both-wide.limit=3", "ratelimit.rules.both-wide.window=1h",
				"ratelimit.rules.both-wide.algorithm=gcra" })
class RateLimitWebFilterIntegrationTests {

	@Value("${ratelimit.key-prefix}")
	String prefix;

	@LocalServerPort
	int port;

	@Autowired
	StringRedisTemplate redis;

	@Autowired
	ObjectProvider<LocalDenialCache> denialCache;

	@Autowired
	RateLimitWebFluxTestApplication.Endpoints endpoints;

	@Autowired
	RateLimitWebFluxTestApplication.ThreadGuard guard;

	@Autowired
	MeterRegistry meters;

	@Autowired
	RateLimitRuleRegistry rules;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitWebFluxTestApplication.register(registry);
	}

	@BeforeEach
	void deleteBudgets() {
		RateLimitWebFluxTestApplication.deleteKeys(this.redis, this.prefix);
		this.denialCache.ifAvailable(LocalDenialCache::clear);
		this.endpoints.itemsServed.set(0);
	}

	@Test
	void rejectsTheRequestAfterTheLimitWithAProblemAndHeadersCountingDown() throws Exception {
		for (int remaining = 2; remaining >= 0; remaining--) {
			HttpResponse<String> allowed = get(this.port, "/api/items");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.body()).isEqualTo("items");
			assertThat(allowed.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"api\";q=3;w=60");
			assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.matches("\"api\";r=" + remaining + ";t=(59|60)");
		}
		HttpResponse<String> rejected = get(this.port, "/api/items");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		long retryAfter = Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(1L, 60L);
		assertThat(rejected.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"api\";r=0;t=" + retryAfter);
		String body = rejected.body();
		assertThat((Integer) JsonPath.read(body, "$.status")).isEqualTo(429);
		assertThat((String) JsonPath.read(body, "$.detail"))
			.isEqualTo("Rate limit 'api' of 3 per minute exceeded; retry after " + retryAfter + " seconds.");
		assertThat((String) JsonPath.read(body, "$.instance")).isEqualTo("/api/items");
		assertThat((List<String>) JsonPath.read(body, "$.violatedPolicies")).containsExactly("api");
		assertThat(this.endpoints.itemsServed).hasValue(3);
		// another method on the same path is not the rule's
		assertThat(send(this.port, "POST", "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/open").headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.isEmpty();
	}

	@Test
	void refusesAFloodFromMemoryAfterRedisRefusedOnce() throws Exception {
		// the first call may load the script as well (EVALSHA, then EVAL)
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 23; i++) {
			get(this.port, "/api/items");
		}
		// two more grants and the first refusal by Redis, twenty refusals from memory
		assertThat(RedisTestServer.shared().scriptCalls() - before).isEqualTo(3);
		assertThat(this.endpoints.itemsServed).hasValue(3);
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
		// without the header the request is charged under its client address
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(200);
	}

	@Test
	void asksThePlanResolverAwayFromTheEventLoop() throws Exception {
		for (int i = 0; i < 4; i++) {
			HttpResponse<String> pro = get(this.port, "/keyed", "X-Api-Key", "pro-" + this.prefix);
			assertThat(pro.statusCode()).isEqualTo(200);
			assertThat(pro.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"keyed\";q=4;w=60");
		}
		assertThat(get(this.port, "/keyed", "X-Api-Key", "pro-" + this.prefix).statusCode()).isEqualTo(429);
		assertThat(this.guard.planThreads).isNotEmpty()
			.allSatisfy((thread) -> assertThat(thread).endsWith("nonBlocking=false"));
	}

	@Test
	void ignoresForwardingHeadersFromAnUntrustedClient() throws Exception {
		assertThat(get(this.port, "/address", "X-Forwarded-For", "203.0.113.1").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/address", "X-Forwarded-For", "203.0.113.2").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/address", "X-Forwarded-For", "203.0.113.3", "Forwarded", "for=203.0.113.4")
			.statusCode()).isEqualTo(429);
		assertThat(this.redis.keys(this.prefix + ":*:address:ip:127.0.0.1")).hasSize(1);
	}

	@Test
	void readsQueryParametersReactiveKeyResolversAndPrincipals() throws Exception {
		assertThat(get(this.port, "/param?account=a").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/param?account=a").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/param?account=b").statusCode()).isEqualTo(200);

		assertThat(get(this.port, "/tenant", "X-Tenant", "acme").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/tenant", "X-Tenant", "acme").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/tenant", "X-Tenant", "globex").statusCode()).isEqualTo(200);

		assertThat(get(this.port, "/me", "X-User", "alice").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/me", "X-User", "alice").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/me", "X-User", "bob").statusCode()).isEqualTo(200);
		assertThat(this.redis.keys(this.prefix + ":*:me:principal:alice")).hasSize(1);
	}

	@Test
	void chargesARequestWhoseKeyResolverFailsUnderItsClientAddress() throws Exception {
		assertThat(get(this.port, "/exploding").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/exploding").statusCode()).isEqualTo(429);
		assertThat(this.redis.keys(this.prefix + ":*:exploding:ip:127.0.0.1")).hasSize(1);
	}

	@Test
	void appliesTheRulesOfAnnotatedHandlers() throws Exception {
		assertThat(get(this.port, "/annotated").statusCode()).isEqualTo(200);
		HttpResponse<String> second = get(this.port, "/annotated");
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(second.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.endsWith(";q=2;w=60");
		assertThat(get(this.port, "/annotated").statusCode()).isEqualTo(429);
	}

	@Test
	void chargesSeveralRulesAllOrNothing() throws Exception {
		for (int i = 0; i < 2; i++) {
			assertThat(get(this.port, "/both").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> refused = get(this.port, "/both");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.startsWith("\"both-narrow\";r=0");
		// the refusal of the narrow rule left the wide one uncharged: two of its three permits taken
		RateLimitRule wide = this.rules.find("both-wide");
		assertThat(this.rules.limiter(wide).inspect(wide.budgetId("127.0.0.1", "127.0.0.1"), wide.limits()).get(0)
			.remaining()).isEqualTo(1);
	}

	@Test
	void shadowRulesNeverRefuseButAreCounted() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get(this.port, "/shadowed").statusCode()).isEqualTo(200);
		}
		assertThat(this.meters.counter("ratelimit.decisions", "rule", "shadowed", "outcome",
				"shadow-rejected").count()).isEqualTo(2);
	}

	@Test
	void showsTheRulesThroughTheEndpoint() throws Exception {
		HttpResponse<String> rules = get(this.port, "/actuator/ratelimit");
		assertThat(rules.statusCode()).isEqualTo(200);
		assertThat((List<String>) JsonPath.read(rules.body(), "$.rules[*].name")).contains("api", "keyed", "me");
	}

	@Test
	void neverMakesABlockingRedisCall() throws Exception {
		int before = this.guard.asyncCalls.get();
		for (int i = 0; i < 5; i++) {
			get(this.port, "/api/items");
			get(this.port, "/me", "X-User", "carol");
			get(this.port, "/tenant", "X-Tenant", "initech");
			get(this.port, "/annotated");
			get(this.port, "/both");
		}
		assertThat(this.guard.asyncCalls.get() - before).isPositive();
		// every decision went through the asynchronous API; the request threads are Netty's event loops. The one
		// blocking caller is the overrides' refresh, on a thread of its own every ratelimit.overrides.refresh-interval
		assertThat(this.guard.blockingCalls).isSubsetOf("ratelimit-overrides");
		assertThat(this.guard.requestThreads).isNotEmpty()
			.allSatisfy((thread) -> assertThat(thread).endsWith("nonBlocking=true"));
	}

}

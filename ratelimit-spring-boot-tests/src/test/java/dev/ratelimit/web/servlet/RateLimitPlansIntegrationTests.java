package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.actuate.RateLimitDescriptors;
import dev.ratelimit.actuate.RateLimitEndpoint;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.rules.flow.RateLimitPlanCache;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans on Tomcat and a real Redis: each key charged under its plan's limits, found by a resolver bean
 * (cached) or a header; 'unlimited' exempt; a failing resolver and unknown plans on the rule's own limits;
 * a key that changes plan keeps what it spent.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, RateLimitPlansIntegrationTests.Plans.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=ratelimit", "ratelimit.plan-cache.ttl=1h",
				// the test client stands for the upstream that sets X-Plan
				"ratelimit.trusted-proxies=127.0.0.1/32",
				"ratelimit.rules.api.paths=/keyed", "ratelimit.rules.api.key=header:X-Api-Key",
				"ratelimit.rules.api.limit=2", "ratelimit.rules.api.window=1m", "ratelimit.rules.api.plan=bean:planResolver",
				"ratelimit.rules.api.plans.pro.limit=5", "ratelimit.rules.api.plans.pro.window=1m",
				"ratelimit.rules.tiered.paths=/param", "ratelimit.rules.tiered.key=header:X-Api-Key",
				"ratelimit.rules.tiered.limit=1", "ratelimit.rules.tiered.window=1m",
				"ratelimit.rules.tiered.plan=header:X-Plan", "ratelimit.rules.tiered.plans.gold.limit=3",
				"ratelimit.rules.tiered.plans.gold.window=1m" })
class RateLimitPlansIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private Plans plans;

	@Autowired
	private RateLimitPlanCache planCache;

	@Autowired
	private RateLimitEndpoint endpoint;

	@BeforeEach
	void forgetPlans() {
		this.planCache.clear();
		this.plans.calls.set(0);
	}

	@Test
	void chargesEachKeyUnderItsPlansLimitsAndAnnouncesThem() throws Exception {
		for (int remaining = 1; remaining >= 0; remaining--) {
			HttpResponse<String> free = get(this.port, "/keyed", "X-Api-Key", "free-1");
			assertThat(free.statusCode()).isEqualTo(200);
			assertThat(free.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"api\";q=2;w=60");
			assertThat(free.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.startsWith("\"api\";r=" + remaining + ";");
		}
		assertThat(get(this.port, "/keyed", "X-Api-Key", "free-1").statusCode()).isEqualTo(429);
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> pro = get(this.port, "/keyed", "X-Api-Key", "pro-1");
			assertThat(pro.statusCode()).isEqualTo(200);
			assertThat(pro.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"api\";q=5;w=60");
		}
		assertThat(get(this.port, "/keyed", "X-Api-Key", "pro-1").statusCode()).isEqualTo(429);
	}

	@Test
	void asksTheResolverOncePerKeyWhileItsAnswerIsRemembered() throws Exception {
		for (int i = 0; i < 4; i++) {
			get(this.port, "/keyed", "X-Api-Key", "pro-2");
		}
		assertThat(this.plans.calls).hasValue(1);
	}

	@Test
	void exemptsKeysOnTheUnlimitedPlanWithoutCallingRedis() throws Exception {
		long before = RedisTestServer.shared().scriptCalls();
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> internal = get(this.port, "/keyed", "X-Api-Key", "internal");
			assertThat(internal.statusCode()).isEqualTo(200);
			assertThat(internal.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		assertThat(RedisTestServer.shared().scriptCalls() - before).isZero();
	}

	@Test
	void chargesTheRulesOwnLimitsWhenTheResolverFails() throws Exception {
		assertThat(get(this.port, "/keyed", "X-Api-Key", "broken").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/keyed", "X-Api-Key", "broken").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/keyed", "X-Api-Key", "broken").statusCode()).isEqualTo(429);
	}

	@Test
	void keepsWhatAKeySpentWhenItChangesPlan() throws Exception {
		get(this.port, "/keyed", "X-Api-Key", "mover");
		get(this.port, "/keyed", "X-Api-Key", "mover");
		assertThat(get(this.port, "/keyed", "X-Api-Key", "mover").statusCode()).isEqualTo(429);
		this.plans.upgraded.put("mover", "pro");
		this.planCache.clear();
		HttpResponse<String> upgraded = get(this.port, "/keyed", "X-Api-Key", "mover");
		assertThat(upgraded.statusCode()).isEqualTo(200);
		// two of the pro plan's five spent on the free plan, one now
		assertThat(upgraded.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.startsWith("\"api\";r=2;");
	}

	@Test
	void readsThePlanATrustedUpstreamSetsInAHeader() throws Exception {
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> gold = get(this.port, "/param", "X-Api-Key", "k", "X-Plan", "gold");
			assertThat(gold.statusCode()).isEqualTo(200);
			assertThat(gold.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"tiered\";q=3;w=60");
		}
		assertThat(get(this.port, "/param", "X-Api-Key", "k", "X-Plan", "gold").statusCode()).isEqualTo(429);
		HttpResponse<String> unknown = get(this.port, "/param", "X-Api-Key", "other", "X-Plan", "platinum");
		assertThat(unknown.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"tiered\";q=1;w=60");
	}

	@Test
	void showsAKeyUnderThePlanThisInstanceRemembersWithoutNamingIt() throws Exception {
		get(this.port, "/keyed", "X-Api-Key", "pro-3");
		RateLimitDescriptors.KeyDescriptor pro = this.endpoint.state("api", "pro-3", null);
		assertThat(pro.limits()).singleElement().satisfies((limit) -> {
			assertThat(limit.limit()).isEqualTo(5);
			assertThat(limit.remaining()).isEqualTo(4);
		});
		assertThat(this.plans.calls).hasValue(1);
	}

	@Test
	void neverAsksTheResolverToReadAKeyThisInstanceHasNotSeen() throws Exception {
		// a reader could otherwise have the plans database look up any key, and learn its plan from the answer
		RateLimitDescriptors.KeyDescriptor unseen = this.endpoint.state("api", "pro-never-seen", null);
		assertThat(this.plans.calls).hasValue(0);
		assertThat(unseen.limits()).singleElement().satisfies((limit) -> assertThat(limit.limit()).isEqualTo(2));
		HttpResponse<String> read = get(this.port, "/actuator/ratelimit/api/internal");
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat(read.body()).doesNotContain("plan").doesNotContain("unlimited");
		assertThat(this.plans.calls).hasValue(0);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Plans {

		final AtomicInteger calls = new AtomicInteger();

		final Map<String, String> upgraded = new ConcurrentHashMap<>();

		@Bean
		RateLimitPlanResolver planResolver() {
			return (rule, key) -> {
				this.calls.incrementAndGet();
				if (this.upgraded.containsKey(key)) {
					return this.upgraded.get(key);
				}
				if (key.equals("broken")) {
					throw new IllegalStateException("the plans database is down");
				}
				if (key.equals("internal")) {
					return RateLimitPlanResolver.UNLIMITED;
				}
				return key.startsWith("pro-") ? "pro" : null;
			};
		}

	}

}

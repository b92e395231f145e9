package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;

import dev.ratelimit.RateLimited;

import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A web handler that calls a {@link RateLimited} method of a service, on every stack with a real Redis: the
 * service's refusal is answered as a refused request (429, the rate-limit headers, the problem body), after the
 * headers of the request's own rules, and a service method keyed by a header reads it from the request it is called
 * in (the thread's on Spring MVC, the Reactor context's on WebFlux); a key's override set through the endpoint applies
 * to a service's limit as to a request's.
 */
class RateLimitedServiceOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.of("ratelimit.rules.quotes-api.paths", "/quotes/**",
			"ratelimit.rules.quotes-api.limit", "100", "ratelimit.rules.quotes-api.window", "1m",
			"management.endpoints.web.exposure.include", "ratelimit", "ratelimit.allow.addresses", "127.0.0.2"),
			QuoteEndpoints.class);

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aServicesRefusalIsAnsweredAsARefusedRequest(WebStack stack) {
		StackApp app = apps.on(stack);
		QuoteService service = app.context().getBean(QuoteService.class);
		int before = service.served();
		assertThat(app.get("/quotes/by-user/" + stack + "-ann").status()).isEqualTo(200);
		StackApp.Reply refused = app.get("/quotes/by-user/" + stack + "-ann");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("Retry-After")).hasValueSatisfying((seconds) -> assertThat(Long.parseLong(seconds))
			.isBetween(1L, 60L));
		// the request's own rule first, then the service's limit that refused it
		assertThat(refused.header("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"quotes-api\";q=100;w=60, \"quote-by-user\";q=1;w=60");
		assertThat(refused.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).hasValueSatisfying(
				(value) -> assertThat(value).startsWith("\"quotes-api\";r=98;").contains("\"quote-by-user\";r=0;t="));
		assertThat(refused.header("Content-Type")).hasValue("application/problem+json");
		assertThat((Integer) JsonPath.read(refused.body(), "$.status")).isEqualTo(429);
		assertThat(service.served() - before).isEqualTo(1);
		// another user is not refused
		assertThat(app.get("/quotes/by-user/" + stack + "-bob").status()).isEqualTo(200);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aServiceKeyedByAHeaderReadsTheRequestItIsCalledIn(WebStack stack) {
		StackApp app = apps.on(stack);
		String alpha = stack + "-alpha";
		assertThat(app.get("/quotes/by-key", "X-Api-Key", alpha).status()).isEqualTo(200);
		assertThat(app.get("/quotes/by-key", "X-Api-Key", alpha).status()).isEqualTo(200);
		StackApp.Reply refused = app.get("/quotes/by-key", "X-Api-Key", alpha);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValueSatisfying((value) -> assertThat(value)
			.contains("\"quote-by-key\";r=0;"));
		assertThat(app.get("/quotes/by-key", "X-Api-Key", stack + "-beta").status()).isEqualTo(200);
		assertThat(app.redisKeys()).anySatisfy((key) -> assertThat(key).contains("quote-by-key:header:" + alpha));
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aClientOnTheAllowListSkipsTheServicesLimitsToo(WebStack stack) {
		StackApp app = apps.on(stack);
		String key = stack + "-allowed";
		for (int i = 0; i < 4; i++) {
			assertThat(app.getFrom("127.0.0.2", "/quotes/by-key", "X-Api-Key", key).status()).isEqualTo(200);
		}
		assertThat(app.redisKeys()).noneSatisfy((redisKey) -> assertThat(redisKey).contains(key));
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void theEndpointListsTheServicesLimitsAndReadsTheirKeys(WebStack stack) {
		StackApp app = apps.on(stack);
		StackApp.Reply rules = app.get("/actuator/ratelimit");
		assertThat((List<String>) JsonPath.read(rules.body(), "$.rules[?(@.name == 'quote-by-user')].key"))
			.containsExactly("#user");
		assertThat((List<String>) JsonPath.read(rules.body(), "$.rules[?(@.name == 'quote-by-user')].source"))
			.singleElement()
			.asString()
			.contains("QuoteService.quoteFor");
		String user = stack + "-carl";
		app.get("/quotes/by-user/" + user);
		StackApp.Reply state = app.get("/actuator/ratelimit/quote-by-user/" + user);
		assertThat(state.status()).isEqualTo(200);
		assertThat((Integer) JsonPath.read(state.body(), "$.limits[0].remaining")).isZero();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aKeysOverrideSetThroughTheEndpointAppliesToTheServicesLimit(WebStack stack) {
		StackApp app = apps.on(stack);
		String user = stack + "-dora";
		StackApp.Reply set = app.send("POST", "/actuator/ratelimit/quote-by-user/" + user + "/override",
				"{\"limit\": 3, \"window\": \"1m\"}");
		assertThat(set.status()).isEqualTo(200);
		for (int i = 0; i < 3; i++) {
			assertThat(app.get("/quotes/by-user/" + user).status()).isEqualTo(200);
		}
		StackApp.Reply refused = app.get("/quotes/by-user/" + user);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"quotes-api\";q=100;w=60, \"quote-by-user\";q=3;w=60");
		// another user keeps the method's own limit
		assertThat(app.get("/quotes/by-user/" + stack + "-ed").status()).isEqualTo(200);
		assertThat(app.get("/quotes/by-user/" + stack + "-ed").status()).isEqualTo(429);
		assertThat(app.send("DELETE", "/actuator/ratelimit/quote-by-user/" + user + "/override", null).status())
			.isEqualTo(200);
	}

	@Import(QuoteService.class)
	@RestController
	static class QuoteEndpoints {

		private final QuoteService quotes;

		QuoteEndpoints(QuoteService quotes) {
			this.quotes = quotes;
		}

		@GetMapping("/quotes/by-user/{user}")
		String byUser(@PathVariable String user) {
			return this.quotes.quoteFor(user);
		}

		@GetMapping("/quotes/by-key")
		Mono<String> byKey() {
			return this.quotes.quoteForCaller();
		}

	}

	static class QuoteService {

		private final AtomicInteger served = new AtomicInteger();

		@RateLimited(name = "quote-by-user", limit = 1, window = "1m", key = "#user")
		public String quoteFor(String user) {
			this.served.incrementAndGet();
			return "a quote for " + user;
		}

		@RateLimited(name = "quote-by-key", limit = 2, window = "1m", key = "header:X-Api-Key", missingKey = "reject")
		public Mono<String> quoteForCaller() {
			return Mono.fromSupplier(() -> {
				this.served.incrementAndGet();
				return "a quote";
			});
		}

		public int served() {
			return this.served.get();
		}

	}

}

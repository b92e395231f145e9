package dev.ratelimit.web;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import com.jayway.jsonpath.JsonPath;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.testsupport.CurlRequest;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.RateLimitFields;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Per-key overrides on two instances of one application on one real Redis, one on Spring MVC and one on WebFlux:
 * an override set through one instance's endpoint (real HTTP) applies on the other once it read the overrides again,
 * shows in that key's headers, is listed, removed, shared by the keys of a pattern (a key's own winning), ends after
 * its duration (Redis dropping it), reaches an instance started after it was set, and bad bodies are refused with 400
 * naming the field.
 */
class RateLimitOverridesOnTwoInstancesTests {

	private static final String PREFIX = "overrides-" + UUID.randomUUID().toString().substring(0, 8);

	private static final Map<String, String> PROPERTIES = Map.of("management.endpoints.web.exposure.include",
			"ratelimit", "ratelimit.key-prefix", PREFIX, "ratelimit.overrides.refresh-interval", "200ms",
			"ratelimit.rules.api.paths", "/api/**", "ratelimit.rules.api.key", "header:X-Api-Key",
			"ratelimit.rules.api.limit", "3", "ratelimit.rules.api.window", "1m");

	private static final StackApp one = WebStack.SERVLET.start(PROPERTIES);

	private static final StackApp other = WebStack.WEBFLUX.start(PROPERTIES);

	private static @Nullable StackApp late;

	@AfterAll
	static void stop() {
		one.close();
		other.close();
		if (late != null) {
			late.close();
		}
	}

	@BeforeEach
	void deleteBudgetsAndOverrides() {
		one.deleteBudgets();
		one.context().getBean(RateLimitOverrides.class).list("api")
			.forEach((override) -> one.context().getBean(RateLimitOverrides.class).remove("api", override.key()));
		awaitLimits(other, "acme", null);
	}

	@Test
	void anOverrideSetThroughOneInstanceAppliesOnTheOtherWithItsHeadersUntilRemoved() {
		StackApp.Reply set = one.send("POST", "/actuator/ratelimit/api/acme/override",
				"{\"limit\": 5, \"window\": \"30s\", \"duration\": \"2h\"}");
		assertThat(set.status()).isEqualTo(200);
		assertThat((Integer) JsonPath.read(set.body(), "$.limits[0].limit")).isEqualTo(5);
		assertThat((String) JsonPath.read(set.body(), "$.limits[0].window")).isEqualTo("30s");
		assertThat((String) JsonPath.read(set.body(), "$.expiresAt")).isNotBlank();
		// at once on the instance that set it
		assertThat(policy(api(one, "acme"))).isEqualTo("\"api\";q=5;w=30");
		// on the other from its next read of the overrides
		awaitLimits(other, "acme", List.of(new RateLimit(5, Duration.ofSeconds(30))));
		StackApp.Reply served = api(other, "acme");
		assertThat(policy(served)).isEqualTo("\"api\";q=5;w=30");
		assertThat(remaining(served)).isEqualTo("\"api\";r=3;t=30");
		for (int i = 0; i < 3; i++) {
			assertThat(api(other, "acme").status()).isEqualTo(200);
		}
		assertThat(api(other, "acme").status()).isEqualTo(429);
		// other keys keep the rule's limits
		assertThat(policy(api(other, "zed"))).isEqualTo("\"api\";q=3;w=60");

		StackApp.Reply listed = other.get("/actuator/ratelimit/api");
		assertThat(listed.status()).isEqualTo(200);
		assertThat((List<String>) JsonPath.read(listed.body(), "$.overrides[*].key")).containsExactly("acme");

		StackApp.Reply removed = other.send("DELETE", "/actuator/ratelimit/api/acme/override", null);
		assertThat(removed.status()).isEqualTo(200);
		assertThat((Boolean) JsonPath.read(removed.body(), "$.removed")).isTrue();
		awaitLimits(one, "acme", null);
		assertThat(policy(api(one, "acme"))).isEqualTo("\"api\";q=3;w=60");
		assertThat(other.send("DELETE", "/actuator/ratelimit/api/acme/override", null).status()).isEqualTo(404);
		assertThat((List<?>) JsonPath.read(one.get("/actuator/ratelimit/api").body(), "$.overrides")).isEmpty();
	}

	@Test
	void keysMatchingAPatternShareItsOverrideAndAKeysOwnWins() {
		// two limits in one body: Spring Boot reads an endpoint's body as a map of strings, hence the short form
		assertThat(other.send("POST", "/actuator/ratelimit/api/partner-*/override", "{\"limits\": \"10/1m, 100/1h\"}")
			.status()).isEqualTo(200);
		assertThat(one.send("POST", "/actuator/ratelimit/api/partner-big/override", "{\"limit\": 50, \"window\": \"1m\"}")
			.status()).isEqualTo(200);
		awaitLimits(other, "partner-big", List.of(new RateLimit(50, Duration.ofMinutes(1))));
		assertThat(policy(api(other, "partner-a"))).isEqualTo("\"api-1m\";q=10;w=60, \"api-1h\";q=100;w=3600");
		assertThat(policy(api(other, "partner-b"))).isEqualTo("\"api-1m\";q=10;w=60, \"api-1h\";q=100;w=3600");
		assertThat(remaining(api(other, "partner-a"))).isEqualTo("\"api-1m\";r=8;t=60, \"api-1h\";r=98;t=3600");
		assertThat(policy(api(other, "partner-big"))).isEqualTo("\"api\";q=50;w=60");
		assertThat(policy(api(other, "partners"))).isEqualTo("\"api\";q=3;w=60");
		assertThat((List<String>) JsonPath.read(other.get("/actuator/ratelimit/api").body(), "$.overrides[*].key"))
			.containsExactly("partner-*", "partner-big");
	}

	@Test
	void anOverrideEndsAfterItsDurationAndRedisDropsIt() {
		assertThat(one.send("POST", "/actuator/ratelimit/api/brief/override",
				"{\"limit\": 5, \"window\": \"1m\", \"duration\": \"1s\"}").status()).isEqualTo(200);
		assertThat(policy(api(one, "brief"))).isEqualTo("\"api\";q=5;w=60");
		StringRedisTemplate redis = one.context().getBean(StringRedisTemplate.class);
		assertThat(redis.getExpire(PREFIX + ":overrides")).isBetween(0L, 1L);
		// Redis expires the hash with its last override; each instance stops applying it at its end meanwhile
		await().atMost(Duration.ofSeconds(10)).until(() -> !redis.hasKey(PREFIX + ":overrides"));
		awaitLimits(one, "brief", null);
		awaitLimits(other, "brief", null);
		assertThat(policy(api(other, "brief"))).isEqualTo("\"api\";q=3;w=60");
	}

	@Test
	void anInstanceStartedAfterAnOverrideWasSetAppliesIt() {
		assertThat(one.send("POST", "/actuator/ratelimit/api/late/override", "{\"limit\": 7, \"window\": \"1m\"}")
			.status()).isEqualTo(200);
		// closed with the others: closing an application disposes Reactor Netty's global resources, WebFlux's server's
		late = WebStack.SERVLET.start(PROPERTIES);
		awaitLimits(late, "late", List.of(new RateLimit(7, Duration.ofMinutes(1))));
		assertThat(policy(api(late, "late"))).isEqualTo("\"api\";q=7;w=60");
	}

	@Test
	void refusesBadBodiesWith400NamingTheFieldAndTheFix() {
		assertBadRequest("{}", "the body has no limits; give {\"limit\": 5, \"window\": \"1m\"}");
		assertBadRequest("{\"limit\": \"many\", \"window\": \"1m\"}", "limit 'many' is invalid; give a whole number");
		assertBadRequest("{\"limit\": 5}", "window is missing; give one such as 1m or PT1M");
		assertBadRequest("{\"limit\": 5, \"window\": \"soon\"}", "window 'soon' is invalid; give one such as 1m");
		assertBadRequest("{\"limit\": 0, \"window\": \"1m\"}", "limit must be");
		assertBadRequest("{\"limit\": 5, \"window\": \"1m\", \"burst\": 10}",
				"limits do not suit rule 'api' (fixed-window): burst applies to the token bucket and GCRA only");
		assertBadRequest("{\"limits\": \"10/1m, 100\"}",
				"limits[1] '100' is invalid; give <limit>/<window>[/<burst>], such as \"limits\": \"5/1m, 100/1h\"");
		assertBadRequest("{\"limits\": \"10/1m\", \"limit\": 5}", "the body gives both limits and limit/window/burst");
		assertBadRequest("{\"limit\": 5, \"window\": \"1m\", \"duration\": \"forever\"}",
				"duration 'forever' is invalid; give one such as 2h or PT2H");
		assertThat(one.send("POST", "/actuator/ratelimit/nobody/acme/override", "{\"limit\": 5, \"window\": \"1m\"}")
			.status()).isEqualTo(404);
		assertThat((List<?>) JsonPath.read(one.get("/actuator/ratelimit/api").body(), "$.overrides")).isEmpty();
		// a block still wants its duration
		StackApp.Reply block = one.send("POST", "/actuator/ratelimit/api/acme", "{}");
		assertThat(block.status()).isEqualTo(400);
	}

	@Test
	void operationsShowsTheTranscriptOfAnOverride() {
		int port = port(one);
		int otherPort = port(other);
		StringBuilder transcript = new StringBuilder();
		String body = "{\"limit\": 5, \"window\": \"1m\", \"duration\": \"2h\"}";
		transcript.append("$ curl -s -X POST localhost:8080/actuator/ratelimit/api/acme/override \\\n"
				+ "    -H 'Content-Type: application/json' -d '" + body + "'\n");
		transcript.append(CurlRequest.of(port, "POST", "/actuator/ratelimit/api/acme/override")
			.header("Content-Type", "application/json").body(body).send().body()).append('\n');
		awaitLimits(other, "acme", List.of(new RateLimit(5, Duration.ofMinutes(1))));
		transcript.append("$ curl -si localhost:8081/api/orders -H 'X-Api-Key: acme' | grep -i '^HTTP\\|^RateLimit'\n");
		transcript.append(CurlRequest.get(otherPort, "/api/orders").header("X-Api-Key", "acme").send()
			.statusAndHeaders("RateLimit-Policy", "RateLimit"));
		transcript.append("$ curl -s localhost:8081/actuator/ratelimit/api\n");
		transcript.append(CurlRequest.get(otherPort, "/actuator/ratelimit/api").send().body()).append('\n');
		transcript.append("$ curl -s -X DELETE localhost:8081/actuator/ratelimit/api/acme/override\n");
		transcript.append(CurlRequest.of(otherPort, "DELETE", "/actuator/ratelimit/api/acme/override").send().body())
			.append('\n');
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "operations.md"),
				"RateLimitOverridesOnTwoInstancesTests", null), transcript.toString());
	}

	private static void assertBadRequest(String body, String error) {
		StackApp.Reply reply = one.send("POST", "/actuator/ratelimit/api/acme/override", body);
		assertThat(reply.status()).as(body).isEqualTo(400);
		assertThat((String) JsonPath.read(reply.body(), "$.error")).as(body).contains(error);
	}

	private static void awaitLimits(StackApp app, String key, @Nullable List<RateLimit> limits) {
		RateLimitOverrides overrides = app.context().getBean(RateLimitOverrides.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> Objects.equals(overrides.limits("api", key), limits));
	}

	private static StackApp.Reply api(StackApp app, String key) {
		return app.get("/api/orders", "X-Api-Key", key);
	}

	private static String policy(StackApp.Reply reply) {
		return reply.header("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys).orElse("");
	}

	private static String remaining(StackApp.Reply reply) {
		return reply.header("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElse("");
	}

	private static int port(StackApp app) {
		return ((WebServerApplicationContext) app.context()).getWebServer().getPort();
	}

}

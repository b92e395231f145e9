package dev.ratelimit.web.servlet;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.CurlRequest;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimit} health contributor through {@code /actuator/health}, against a real Redis: up with its
 * details, down with the reason once Redis is gone, the breaker's state and the keys decided in memory; out of the
 * readiness group; off by property.
 */
class RateLimitHealthIntegrationTests {

	@Test
	void isUpWithTheFailureModeAndTheBreakerAndStaysOutOfReadiness() throws Exception {
		try (ConfigurableApplicationContext app = start(RedisTestServer.shared().url())) {
			HttpResponse<String> health = get(port(app), "/actuator/health/ratelimit");
			assertThat(health.statusCode()).isEqualTo(200);
			assertThat((String) JsonPath.read(health.body(), "$.status")).isEqualTo("UP");
			assertThat((Map<String, Object>) JsonPath.read(health.body(), "$.details")).containsOnly(
					Map.entry("failureMode", "fail-open"), Map.entry("circuitBreaker", "closed"));
			HealthEndpointGroups groups = app.getBean(HealthEndpointGroups.class);
			assertThat(groups.getNames()).contains("readiness", "liveness");
			assertThat(groups.getNames()).allSatisfy(
					(group) -> assertThat(groups.get(group).isMember("ratelimit")).as(group).isFalse());
			assertThat((Map<String, Object>) JsonPath.read(get(port(app), "/actuator/health").body(), "$.components"))
				.containsKey("ratelimit");
		}
	}

	@Test
	void loadsAgainTheScriptsRedisForgot() throws Exception {
		RedisServerProcess server = RedisServerProcess.start(RedisBinary.find());
		try (ConfigurableApplicationContext app = start(server.url())) {
			RedisConnectionFactory connections = app.getBean(RedisConnectionFactory.class);
			try (var connection = connections.getConnection()) {
				connection.scriptingCommands().scriptFlush();
				assertThat(health(app, 200)).isEqualTo("UP");
				// every script the runner sends is known again: SCRIPT EXISTS answers true for each
				assertThat(connection.info("memory").getProperty("number_of_cached_scripts")).isNotEqualTo("0");
			}
		}
		finally {
			server.stop();
		}
	}

	@Test
	void isDownWithTheReasonOnceRedisIsGoneAndShowsTheOpenBreakerAndTheKeysDecidedInMemory() throws Exception {
		RedisServerProcess server = RedisServerProcess.start(RedisBinary.find());
		try (ConfigurableApplicationContext app = start(server.url(), "ratelimit.failure-mode=local",
				"ratelimit.timeout=200ms", "ratelimit.circuit-breaker.failure-threshold=2",
				"ratelimit.circuit-breaker.open-duration=1h", "ratelimit.trusted-proxies=127.0.0.1")) {
			HttpResponse<String> up = get(port(app), "/actuator/health/ratelimit");
			assertThat((String) JsonPath.read(up.body(), "$.status")).isEqualTo("UP");
			assertThat((Integer) JsonPath.read(up.body(), "$.details.localKeys")).isZero();
			assertThat((String) JsonPath.read(up.body(), "$.details.failureMode")).isEqualTo("local");

			server.stop();
			List<Integer> statuses = new ArrayList<>();
			for (String client : List.of("203.0.113.1", "203.0.113.2", "203.0.113.3")) {
				statuses.add(get(port(app), "/api/items", "X-Forwarded-For", client).statusCode());
			}
			assertThat(statuses).containsOnly(200);

			HttpResponse<String> down = get(port(app), "/actuator/health/ratelimit");
			assertThat(down.statusCode()).isEqualTo(503);
			assertThat((String) JsonPath.read(down.body(), "$.status")).isEqualTo("DOWN");
			assertThat((String) JsonPath.read(down.body(), "$.details.reason")).contains("Redis");
			assertThat((String) JsonPath.read(down.body(), "$.details.circuitBreaker")).isEqualTo("open");
			// one key and limit per client, decided in this instance's memory
			assertThat((Integer) JsonPath.read(down.body(), "$.details.localKeys")).isEqualTo(3);
			// as docs/operations.md shows it
			DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "operations.md"),
					"RateLimitHealthIntegrationTests", null), "$ curl -si localhost:8080/actuator/health/ratelimit\n"
							+ CurlRequest.get(port(app), "/actuator/health/ratelimit").send().included() + "\n");
		}
		finally {
			server.stop();
		}
	}

	@Test
	void takesTheInstanceOutOfServiceUnderFailClosedOnceTheApplicationAddsItToReadiness() throws Exception {
		RedisServerProcess server = RedisServerProcess.start(RedisBinary.find());
		// as docs/operations.md shows it
		try (ConfigurableApplicationContext app = start(server.url(), "ratelimit.failure-mode=fail-closed",
				"management.endpoint.health.group.readiness.include=readinessState,ratelimit")) {
			assertThat(get(port(app), "/actuator/health/readiness").statusCode()).isEqualTo(200);
			server.stop();
			HttpResponse<String> readiness = get(port(app), "/actuator/health/readiness");
			assertThat(readiness.statusCode()).isEqualTo(503);
			assertThat((String) JsonPath.read(readiness.body(), "$.components.ratelimit.status")).isEqualTo("DOWN");
			assertThat((String) JsonPath.read(readiness.body(), "$.components.readinessState.status")).isEqualTo("UP");
		}
		finally {
			server.stop();
		}
	}

	@Test
	void isOffWhenDisabledByProperty() throws Exception {
		try (ConfigurableApplicationContext app = start(RedisTestServer.shared().url(),
				"management.health.ratelimit.enabled=false")) {
			assertThat(get(port(app), "/actuator/health/ratelimit").statusCode()).isEqualTo(404);
			assertThat((Map<String, Object>) JsonPath.read(get(port(app), "/actuator/health").body(), "$.components"))
				.containsKey("ping")
				.doesNotContainKey("ratelimit");
		}
	}

	private static String health(ConfigurableApplicationContext app, int status) throws Exception {
		HttpResponse<String> health = get(port(app), "/actuator/health/ratelimit");
		assertThat(health.statusCode()).as(health.body()).isEqualTo(status);
		return JsonPath.read(health.body(), "$.status");
	}

	private static ConfigurableApplicationContext start(String redisUrl, String... properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "spring.data.redis.url=" + redisUrl,
				"ratelimit.key-prefix=health-" + System.nanoTime(), "management.endpoints.web.exposure.include=health",
				"management.endpoint.health.show-details=always", "management.endpoint.health.probes.enabled=true",
				"ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=5", "ratelimit.rules.api.window=1m"));
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(RateLimitTestApplication.class).properties(all.toArray(String[]::new))
			.run();
	}

	private static int port(ConfigurableApplicationContext app) {
		return ((WebServerApplicationContext) app).getWebServer().getPort();
	}

}

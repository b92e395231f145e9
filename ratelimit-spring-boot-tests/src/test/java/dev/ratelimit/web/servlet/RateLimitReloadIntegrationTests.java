package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static dev.ratelimit.web.servlet.RateLimitTestApplication.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules changed without a restart, through the endpoint and through Spring Cloud's
 * EnvironmentChangeEvent: new rules for new requests, budgets carried over, invalid rules refused with
 * the old ones kept.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=ratelimit", "ratelimit.rules.api.paths=/api/**",
				"ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m" })
class RateLimitReloadIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private ConfigurableEnvironment environment;

	@Autowired
	private ApplicationContext context;

	private final Map<String, Object> changed = new HashMap<>();

	@AfterEach
	void restoreTheProperties() throws Exception {
		this.environment.getPropertySources().remove("changed");
		send(this.port, "POST", "/actuator/ratelimit/reload");
	}

	@Test
	void reloadsTheRulesThroughTheEndpointAndKeepsTheBudgets() throws Exception {
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
		change("ratelimit.rules.api.limit", "3");
		change("ratelimit.rules.open.paths", "/open");
		change("ratelimit.rules.open.limit", "1");
		change("ratelimit.rules.open.window", "1h");
		HttpResponse<String> reload = send(this.port, "POST", "/actuator/ratelimit/reload");
		assertThat(reload.statusCode()).isEqualTo(200);
		assertThat((List<String>) JsonPath.read(reload.body(), "$.rules")).containsExactlyInAnyOrder("api", "open");
		// one of the three permits was spent under the old rule
		HttpResponse<String> allowed = get(this.port, "/api/items");
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.startsWith("\"api\";r=1;");
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/open").statusCode()).isEqualTo(429);
	}

	@Test
	void refusesInvalidRulesAndKeepsThoseInForce() throws Exception {
		change("ratelimit.rules.api.limit", "0");
		HttpResponse<String> reload = send(this.port, "POST", "/actuator/ratelimit/reload");
		assertThat(reload.statusCode()).isEqualTo(400);
		assertThat((Boolean) JsonPath.read(reload.body(), "$.reloaded")).isFalse();
		assertThat((String) JsonPath.read(reload.body(), "$.error")).contains("ratelimit.rules.api.limit")
			.contains("limit must be at least 1");
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
	}

	@Test
	void readsThePropertiesOfEveryPartAndRefusesANameNoneHas() throws Exception {
		change("ratelimit.rules.api.limit", "2");
		change("ratelimit.filter.order", "-50");
		change("ratelimit.clients.partner.urls", "https://partner.example/**");
		HttpResponse<String> reload = send(this.port, "POST", "/actuator/ratelimit/reload");
		assertThat(reload.statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"api\";q=2;w=60");
		change("ratelimit.rules.api.limit", "3");
		change("ratelimit.filter.ordr", "-50");
		reload = send(this.port, "POST", "/actuator/ratelimit/reload");
		assertThat(reload.statusCode()).isEqualTo(400);
		assertThat((Boolean) JsonPath.read(reload.body(), "$.reloaded")).isFalse();
		assertThat(get(this.port, "/api/items").headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"api\";q=2;w=60");
	}

	@Test
	void reloadsWhenSpringCloudReportsAChangedProperty() throws Exception {
		change("ratelimit.rules.api.limit", "2");
		this.context.publishEvent(new EnvironmentChangeEvent(this.context, Set.of("ratelimit.rules.api.limit")));
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
		// an invalid change is logged and changes nothing
		change("ratelimit.rules.api.window", "-1s");
		this.context.publishEvent(new EnvironmentChangeEvent(this.context, Set.of("ratelimit.rules.api.window")));
		assertThat(get(this.port, "/api/items").headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"api\";q=2;w=60");
	}

	private void change(String name, String value) {
		this.changed.put(name, value);
		if (!this.environment.getPropertySources().contains("changed")) {
			this.environment.getPropertySources().addFirst(new MapPropertySource("changed", this.changed));
		}
	}

}

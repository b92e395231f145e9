package dev.ratelimit.web;

import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator endpoint's path form {@code /actuator/ratelimit/{rule}/{key}} on every stack: it reads, resets
 * and blocks the key {@code key} of the rule {@code rule}, a key with slashes included.
 */
class RateLimitEndpointOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.of("management.endpoints.web.exposure.include", "ratelimit",
			"ratelimit.rules.api.paths", "/keyed", "ratelimit.rules.api.key", "header:X-Api-Key", "ratelimit.rules.api.limit",
			"2", "ratelimit.rules.api.window", "1h", "ratelimit.rules.api.block-for", "1m"));

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void readsResetsAndBlocksTheKeyOfTheRule(WebStack stack) {
		StackApp app = apps.on(stack);
		// a key with slashes, and one that starts with its rule's name
		for (String key : new String[] { "k1", "team/alpha", "api/inside" }) {
			assertThat(app.get("/keyed", "X-Api-Key", key).status()).isEqualTo(200);
			StackApp.Reply state = app.get("/actuator/ratelimit/api/" + key);
			assertThat(state.status()).as(key).isEqualTo(200);
			assertThat((String) JsonPath.read(state.body(), "$.rule")).isEqualTo("api");
			assertThat((String) JsonPath.read(state.body(), "$.key")).isEqualTo(key);
			assertThat((Integer) JsonPath.read(state.body(), "$.limits[0].remaining")).as(key).isEqualTo(1);

			assertThat(app.get("/keyed", "X-Api-Key", key).status()).isEqualTo(200);
			assertThat(app.get("/keyed", "X-Api-Key", key).status()).isEqualTo(429);
			StackApp.Reply reset = app.send("DELETE", "/actuator/ratelimit/api/" + key, null);
			assertThat(reset.status()).as(key).isEqualTo(200);
			assertThat((Integer) JsonPath.read(reset.body(), "$.deletedEntries")).as(key).isPositive();
			assertThat(app.get("/keyed", "X-Api-Key", key).status()).as("%s after the reset", key).isEqualTo(200);

			StackApp.Reply blocked = app.send("POST", "/actuator/ratelimit/api/" + key, "{\"duration\": \"10m\"}");
			assertThat(blocked.status()).as(key).isEqualTo(200);
			assertThat(app.get("/keyed", "X-Api-Key", key).status()).as("%s blocked", key).isEqualTo(429);
			assertThat(app.send("DELETE", "/actuator/ratelimit/api/" + key, null).status()).isEqualTo(200);
			assertThat(app.get("/keyed", "X-Api-Key", key).status()).as("%s unblocked", key).isEqualTo(200);
		}
	}

}

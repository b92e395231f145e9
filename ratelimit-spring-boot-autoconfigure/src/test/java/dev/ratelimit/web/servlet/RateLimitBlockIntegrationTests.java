package dev.ratelimit.web.servlet;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.web.TestClockConfiguration;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static dev.ratelimit.web.servlet.RateLimitTestApplication.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules with {@code block-for} on Tomcat and a real Redis, with a clock the test moves: a refused key
 * stays refused across windows until its block ends, a repeat offender longer, failed sign-ins counted
 * and then blocked, and blocks read, set and lifted through the endpoint.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, TestClockConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=ratelimit", "ratelimit.rules.api.paths=/api/**",
				"ratelimit.rules.api.key=header:X-Api-Key", "ratelimit.rules.api.limit=3",
				"ratelimit.rules.api.window=1s", "ratelimit.rules.api.block-for=10s",
				"ratelimit.rules.sign-in.paths=/sign-in", "ratelimit.rules.sign-in.key=param:user",
				"ratelimit.rules.sign-in.limit=2", "ratelimit.rules.sign-in.window=1m",
				"ratelimit.rules.sign-in.count-statuses=401", "ratelimit.rules.sign-in.block-for=15m",
				"ratelimit.rules.sign-in.block-multiplier=2", "ratelimit.rules.sign-in.block-max=1h",
				"ratelimit.rules.open.paths=/open", "ratelimit.rules.open.limit=5", "ratelimit.rules.open.window=1m" })
class RateLimitBlockIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private MutableClock clock;

	@Test
	void aRefusedKeyStaysRefusedAcrossWindowsUntilItsBlockEnds() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(api("alpha").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> refused = api("alpha");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("10");
		assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"api\";r=0;t=10");
		// the one-second window is long over; the block counts down
		this.clock.advance(Duration.ofSeconds(4));
		HttpResponse<String> blocked = api("alpha");
		assertThat(blocked.statusCode()).isEqualTo(429);
		assertThat(blocked.headers().firstValue("Retry-After")).hasValue("6");
		// other keys are not blocked
		assertThat(api("beta").statusCode()).isEqualTo(200);
		this.clock.advance(Duration.ofSeconds(6));
		HttpResponse<String> served = api("alpha");
		assertThat(served.statusCode()).isEqualTo(200);
		// nothing was charged while the key was blocked
		assertThat(served.headers().firstValue("RateLimit")).hasValue("\"api\";r=2;t=1");
	}

	@Test
	void countsFailedSignInsOnlyAndBlocksARepeatOffenderLonger() throws Exception {
		assertThat(signIn("mallory", "secret").statusCode()).isEqualTo(200);
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		// the budget is spent: the next attempt is refused, right password or not, and the block starts
		HttpResponse<String> refused = signIn("mallory", "secret");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("900");
		this.clock.advance(Duration.ofMinutes(10));
		assertThat(signIn("mallory", "secret").headers().firstValue("Retry-After")).hasValue("300");
		assertThat(signIn("trent", "guess").statusCode()).isEqualTo(401);

		// offending again within 15 minutes of the block's end doubles the next block
		this.clock.advance(Duration.ofMinutes(6));
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").headers().firstValue("Retry-After")).hasValue("1800");
		this.clock.advance(Duration.ofMinutes(31));
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").headers().firstValue("Retry-After")).hasValue("3600");
		// never longer than block-max
		this.clock.advance(Duration.ofMinutes(61));
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").headers().firstValue("Retry-After")).hasValue("3600");
	}

	@Test
	void theEndpointShowsBlocksLiftsThemAndBlocksByHand() throws Exception {
		for (int i = 0; i < 4; i++) {
			api("gamma");
		}
		HttpResponse<String> state = get(this.port, "/actuator/ratelimit/api/gamma");
		assertThat(state.statusCode()).isEqualTo(200);
		assertThat((Boolean) JsonPath.read(state.body(), "$.blocked")).isTrue();
		assertThat((Integer) JsonPath.read(state.body(), "$.blockedForSeconds")).isEqualTo(10);
		assertThat((String) JsonPath.read(state.body(), "$.blockedUntil")).isNotBlank();

		HttpResponse<String> lifted = send(this.port, "DELETE", "/actuator/ratelimit/api/gamma");
		assertThat((Boolean) JsonPath.read(lifted.body(), "$.unblocked")).isTrue();
		assertThat(api("gamma").statusCode()).isEqualTo(200);
		assertThat((Boolean) JsonPath.read(get(this.port, "/actuator/ratelimit/api/gamma").body(), "$.blocked"))
			.isFalse();

		HttpResponse<String> blocked = post("/actuator/ratelimit/api/delta", "{\"duration\": \"5m\"}");
		assertThat(blocked.statusCode()).isEqualTo(200);
		assertThat((Integer) JsonPath.read(blocked.body(), "$.blockedForSeconds")).isEqualTo(300);
		HttpResponse<String> refused = api("delta");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("300");
	}

	@Test
	void theEndpointRefusesABadBlockAndABlockUnderARuleWithoutBlocks() throws Exception {
		HttpResponse<String> noBlocks = post("/actuator/ratelimit/open/127.0.0.1", "{\"duration\": \"5m\"}");
		assertThat(noBlocks.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(noBlocks.body(), "$.error"))
			.contains("set ratelimit.rules.open.block-for");
		HttpResponse<String> badDuration = post("/actuator/ratelimit/api/delta", "{\"duration\": \"soon\"}");
		assertThat(badDuration.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(badDuration.body(), "$.error")).contains("duration 'soon' is invalid");
		assertThat(post("/actuator/ratelimit/nobody/delta", "{\"duration\": \"5m\"}").statusCode()).isEqualTo(404);
		assertThat(api("delta").statusCode()).isEqualTo(200);
	}

	private HttpResponse<String> api(String key) throws Exception {
		return get(this.port, "/api/items", "X-Api-Key", key);
	}

	private HttpResponse<String> signIn(String user, String password) throws Exception {
		return get(this.port, "/sign-in?user=" + user + "&password=" + password);
	}

	private HttpResponse<String> post(String path, String json) throws Exception {
		return RateLimitTestApplication.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}

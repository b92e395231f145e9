package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.time.Duration;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.testsupport.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules with {@code block-for} on every stack and a real Redis, with a clock the test moves: a refused key stays
 * refused across windows until its block ends, a repeat offender longer and never longer than {@code block-max},
 * failed sign-ins counted and then blocked, a key charged before the handler blocked to the second, and blocks
 * read, set and lifted through the endpoint, which refuses a bad block with 400 and an unknown rule with 404.
 */
class RateLimitBlockOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.ofEntries(
			Map.entry("management.endpoints.web.exposure.include", "ratelimit"),
			Map.entry("ratelimit.rules.api.paths", "/api/**"), Map.entry("ratelimit.rules.api.key", "header:X-Api-Key"),
			Map.entry("ratelimit.rules.api.limit", "3"), Map.entry("ratelimit.rules.api.window", "1s"),
			Map.entry("ratelimit.rules.api.block-for", "10s"), Map.entry("ratelimit.rules.sign-in.paths", "/sign-in"),
			Map.entry("ratelimit.rules.sign-in.key", "param:user"), Map.entry("ratelimit.rules.sign-in.limit", "2"),
			Map.entry("ratelimit.rules.sign-in.window", "1m"), Map.entry("ratelimit.rules.sign-in.count-statuses", "401"),
			Map.entry("ratelimit.rules.sign-in.block-for", "15m"),
			Map.entry("ratelimit.rules.sign-in.block-multiplier", "2"), Map.entry("ratelimit.rules.sign-in.block-max", "1h"),
			Map.entry("ratelimit.rules.short.paths", "/keyed"), Map.entry("ratelimit.rules.short.limit", "1"),
			Map.entry("ratelimit.rules.short.window", "1s"), Map.entry("ratelimit.rules.short.block-for", "1m"),
			Map.entry("ratelimit.rules.open.paths", "/open"), Map.entry("ratelimit.rules.open.limit", "5"),
			Map.entry("ratelimit.rules.open.window", "1m")), TestClockConfiguration.class);

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aRefusedKeyStaysRefusedAcrossWindowsUntilItsBlockEnds(WebStack stack) {
		StackApp app = apps.on(stack);
		MutableClock clock = clock(app);
		for (int i = 0; i < 3; i++) {
			assertThat(api(app, "alpha").status()).isEqualTo(200);
		}
		StackApp.Reply refused = api(app, "alpha");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("Retry-After")).hasValue("10");
		assertThat(refused.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).hasValue("\"api\";r=0;t=10");
		// the one-second window is long over; the block counts down
		clock.advance(Duration.ofSeconds(4));
		StackApp.Reply blocked = api(app, "alpha");
		assertThat(blocked.status()).isEqualTo(429);
		assertThat(blocked.header("Retry-After")).hasValue("6");
		// other keys are not blocked
		assertThat(api(app, "beta").status()).isEqualTo(200);
		clock.advance(Duration.ofSeconds(6));
		StackApp.Reply served = api(app, "alpha");
		assertThat(served.status()).isEqualTo(200);
		// nothing was charged while the key was blocked
		assertThat(served.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).hasValue("\"api\";r=2;t=1");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void blocksAKeyChargedBeforeTheHandlerToTheSecond(WebStack stack) {
		StackApp app = apps.on(stack);
		MutableClock clock = clock(app);
		assertThat(app.get("/keyed").status()).isEqualTo(200);
		assertThat(app.get("/keyed").header("Retry-After")).hasValue("60");
		clock.advance(Duration.ofSeconds(59));
		assertThat(app.get("/keyed").header("Retry-After")).hasValue("1");
		clock.advance(Duration.ofSeconds(1));
		assertThat(app.get("/keyed").status()).isEqualTo(200);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void countsFailedSignInsOnlyAndBlocksARepeatOffenderLonger(WebStack stack) {
		StackApp app = apps.on(stack);
		MutableClock clock = clock(app);
		assertThat(signIn(app, "mallory", "secret").status()).isEqualTo(200);
		assertThat(signIn(app, "mallory", "guess").status()).isEqualTo(401);
		assertThat(signIn(app, "mallory", "guess").status()).isEqualTo(401);
		// the budget is spent: the next attempt is refused, right password or not, and the block starts
		StackApp.Reply refused = signIn(app, "mallory", "secret");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("Retry-After")).hasValue("900");
		clock.advance(Duration.ofMinutes(10));
		assertThat(signIn(app, "mallory", "secret").header("Retry-After")).hasValue("300");
		assertThat(signIn(app, "trent", "guess").status()).isEqualTo(401);

		// offending again within 15 minutes of the block's end doubles the next block
		clock.advance(Duration.ofMinutes(6));
		assertThat(signIn(app, "mallory", "guess").status()).isEqualTo(401);
		assertThat(signIn(app, "mallory", "guess").status()).isEqualTo(401);
		assertThat(signIn(app, "mallory", "guess").header("Retry-After")).hasValue("1800");
		clock.advance(Duration.ofMinutes(31));
		assertThat(signIn(app, "mallory", "guess").status()).isEqualTo(401);
		assertThat(signIn(app, "mallory", "guess").status()).isEqualTo(401);
		assertThat(signIn(app, "mallory", "guess").header("Retry-After")).hasValue("3600");
		// never longer than block-max
		clock.advance(Duration.ofMinutes(61));
		assertThat(signIn(app, "mallory", "guess").status()).isEqualTo(401);
		assertThat(signIn(app, "mallory", "guess").status()).isEqualTo(401);
		assertThat(signIn(app, "mallory", "guess").header("Retry-After")).hasValue("3600");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void theEndpointShowsBlocksLiftsThemAndBlocksByHand(WebStack stack) {
		StackApp app = apps.on(stack);
		for (int i = 0; i < 4; i++) {
			api(app, "gamma");
		}
		StackApp.Reply state = app.get("/actuator/ratelimit/api/gamma");
		assertThat(state.status()).isEqualTo(200);
		assertThat((Boolean) JsonPath.read(state.body(), "$.blocked")).isTrue();
		assertThat((Integer) JsonPath.read(state.body(), "$.blockedForSeconds")).isEqualTo(10);
		assertThat((String) JsonPath.read(state.body(), "$.blockedUntil")).isNotBlank();

		StackApp.Reply lifted = app.send("DELETE", "/actuator/ratelimit/api/gamma", null);
		assertThat((Boolean) JsonPath.read(lifted.body(), "$.unblocked")).isTrue();
		assertThat(api(app, "gamma").status()).isEqualTo(200);
		assertThat((Boolean) JsonPath.read(app.get("/actuator/ratelimit/api/gamma").body(), "$.blocked")).isFalse();

		StackApp.Reply blocked = app.send("POST", "/actuator/ratelimit/api/delta", "{\"duration\": \"5m\"}");
		assertThat(blocked.status()).isEqualTo(200);
		assertThat((Integer) JsonPath.read(blocked.body(), "$.blockedForSeconds")).isEqualTo(300);
		StackApp.Reply refused = api(app, "delta");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("Retry-After")).hasValue("300");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void theEndpointRefusesABadBlockAndABlockUnderARuleWithoutBlocks(WebStack stack) {
		StackApp app = apps.on(stack);
		StackApp.Reply noBlocks = app.send("POST", "/actuator/ratelimit/open/127.0.0.1", "{\"duration\": \"5m\"}");
		assertThat(noBlocks.status()).isEqualTo(400);
		assertThat((String) JsonPath.read(noBlocks.body(), "$.error")).contains("set ratelimit.rules.open.block-for");
		StackApp.Reply badDuration = app.send("POST", "/actuator/ratelimit/api/delta", "{\"duration\": \"soon\"}");
		assertThat(badDuration.status()).isEqualTo(400);
		assertThat((String) JsonPath.read(badDuration.body(), "$.error")).contains("duration 'soon' is invalid");
		assertThat(app.send("POST", "/actuator/ratelimit/nobody/delta", "{\"duration\": \"5m\"}").status())
			.isEqualTo(404);
		assertThat(api(app, "delta").status()).isEqualTo(200);
	}

	private static MutableClock clock(StackApp app) {
		return app.context().getBean(MutableClock.class);
	}

	private static StackApp.Reply api(StackApp app, String key) {
		return app.get("/api/items", "X-Api-Key", key);
	}

	private static StackApp.Reply signIn(StackApp app, String user, String password) {
		return app.get("/sign-in?user=" + user + "&password=" + password);
	}

}

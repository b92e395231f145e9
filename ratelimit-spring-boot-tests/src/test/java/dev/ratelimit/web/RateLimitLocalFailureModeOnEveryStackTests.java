package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.testsupport.ClosedPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local failure mode while Redis refuses every connection, on every stack: a client that spent its budget
 * stays refused through a flood of made-up keys larger than the instance's memory for windows.
 */
class RateLimitLocalFailureModeOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.of("spring.data.redis.url",
			"redis://127.0.0.1:" + ClosedPort.reserve(), "ratelimit.failure-mode", "local", "ratelimit.local.max-keys",
			"50", "ratelimit.timeout", "200ms", "ratelimit.rules.api.paths", "/keyed", "ratelimit.rules.api.key",
			"header:X-Api-Key", "ratelimit.rules.api.limit", "2", "ratelimit.rules.api.window", "1h"));

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void enforcesTheLimitInMemoryWithItsHeaders(WebStack stack) {
		StackApp app = apps.on(stack);
		String client = "counted-" + stack;
		for (int remaining = 1; remaining >= 0; remaining--) {
			StackApp.Reply allowed = app.get("/keyed", "X-Api-Key", client);
			assertThat(allowed.status()).isEqualTo(200);
			assertThat(allowed.header("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.matches("\"api\";r=" + remaining + ";t=\\d+");
		}
		StackApp.Reply refused = app.get("/keyed", "X-Api-Key", client);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("Retry-After")).isPresent();
		assertThat(app.get("/open").status()).isEqualTo(200);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void keepsRefusingAClientThroughAFloodOfMadeUpKeys(WebStack stack) {
		StackApp app = apps.on(stack);
		String victim = "spender-" + stack;
		assertThat(app.get("/keyed", "X-Api-Key", victim).status()).isEqualTo(200);
		assertThat(app.get("/keyed", "X-Api-Key", victim).status()).isEqualTo(200);
		assertThat(app.get("/keyed", "X-Api-Key", victim).status()).isEqualTo(429);
		for (int i = 0; i < 200; i++) {
			assertThat(app.get("/keyed", "X-Api-Key", "junk-" + stack + "-" + i).status()).isEqualTo(200);
		}
		assertThat(app.get("/keyed", "X-Api-Key", victim).status()).as("after the flood").isEqualTo(429);
	}

}

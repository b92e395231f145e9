package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.testsupport.ClosedPort;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests while Redis refuses every connection, on every stack: {@code fail-open} (the default) lets them
 * through without rate-limit headers and warns once, {@code fail-closed} refuses them with 503 and a problem
 * body, except under a shadow rule, which refuses nothing. ({@code local} has
 * {@link RateLimitLocalFailureModeOnEveryStackTests}.)
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitFailureModesOnEveryStackTests {

	private static final StackApps failOpen = new StackApps(Map.of("spring.data.redis.url",
			"redis://127.0.0.1:" + ClosedPort.reserve(), "ratelimit.rules.api.paths", "/keyed",
			"ratelimit.rules.api.limit", "1", "ratelimit.rules.api.window", "1m"));

	private static final StackApps failClosed = new StackApps(Map.ofEntries(
			Map.entry("spring.data.redis.url", "redis://127.0.0.1:" + ClosedPort.reserve()),
			Map.entry("ratelimit.failure-mode", "fail-closed"), Map.entry("ratelimit.rules.api.paths", "/keyed"),
			Map.entry("ratelimit.rules.api.limit", "1"), Map.entry("ratelimit.rules.api.window", "1m"),
			Map.entry("ratelimit.rules.shadowed.paths", "/address"), Map.entry("ratelimit.rules.shadowed.limit", "1"),
			Map.entry("ratelimit.rules.shadowed.window", "1m"), Map.entry("ratelimit.rules.shadowed.shadow", "true")));

	@AfterAll
	static void stop() {
		failOpen.close();
		failClosed.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void failOpenLetsRequestsThroughWithoutHeadersAndWarnsOnce(WebStack stack, CapturedOutput output) {
		StackApp app = failOpen.on(stack);
		for (int i = 0; i < 10; i++) {
			StackApp.Reply reply = app.get("/keyed");
			assertThat(reply.status()).isEqualTo(200);
			assertThat(reply.header("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		// one WARN when Redis becomes unavailable, none per request
		assertThat(output.getOut().lines().filter((line) -> line.contains(" WARN ") && line.contains("dev.ratelimit")))
			.hasSize(1);
		assertThat(output.getOut()).contains("Redis is unavailable after 5 failed calls in a row");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void failClosedRefusesWithServiceUnavailableButUnderAShadowRule(WebStack stack) {
		StackApp app = failClosed.on(stack);
		StackApp.Reply refused = app.get("/keyed");
		assertThat(refused.status()).isEqualTo(503);
		assertThat(refused.header("Content-Type")).hasValue("application/problem+json");
		assertThat(refused.header("Retry-After")).hasValue("1");
		assertThat((Integer) JsonPath.read(refused.body(), "$.status")).isEqualTo(503);
		assertThat((String) JsonPath.read(refused.body(), "$.detail")).contains("fail-closed");
		assertThat(app.get("/open").status()).isEqualTo(200);
		// a rule in shadow mode refuses nothing, not even when Redis cannot decide
		assertThat(app.get("/address").status()).isEqualTo(200);
	}

}

package dev.ratelimit.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Requests decided while Redis's scripts are paused ({@code CLIENT PAUSE WRITE}) past {@code ratelimit.timeout}, on
 * every stack, in {@code fail-open} (let through) and {@code fail-closed} (503): when Redis resumes and runs their
 * scripts, what those charged is given back, so that the budget shows no charge for them (exact counts); the warning and the metric
 * {@code ratelimit.timeouts} say Redis was late ({@code cause=redis}).
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitTimedOutDecisionsOnEveryStackTests {

	private static final int DURING_PAUSE = 3;

	private static final StackApps failOpen = new StackApps(properties("fail-open"));

	private static final StackApps failClosed = new StackApps(properties("fail-closed"));

	@AfterAll
	static void stop() {
		failOpen.close();
		failClosed.close();
	}

	private static Map<String, String> properties(String failureMode) {
		return Map.of("ratelimit.failure-mode", failureMode, "ratelimit.timeout", "200ms",
				"ratelimit.rules.api.paths", "/keyed", "ratelimit.rules.api.limit", "10", "ratelimit.rules.api.window",
				"1h", "ratelimit.rules.api.algorithm", "fixed-window");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void failOpenLetsRequestsThroughWhileRedisIsPausedAndChargesThemNothing(WebStack stack, CapturedOutput output) {
		StackApp app = failOpen.on(stack);
		List<Integer> statuses = duringPause(app);
		assertThat(statuses).containsOnly(200);
		assertTheBudgetShowsOnlyTheFirstRequest(app, output);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void failClosedRefusesRequestsWhileRedisIsPausedAndChargesThemNothing(WebStack stack, CapturedOutput output) {
		StackApp app = failClosed.on(stack);
		List<Integer> statuses = duringPause(app);
		assertThat(statuses).containsOnly(503);
		assertTheBudgetShowsOnlyTheFirstRequest(app, output);
	}

	/**
	 * One request charged before the pause, {@link #DURING_PAUSE} while Redis's scripts are paused (until they have
	 * been answered, however long that takes on a loaded machine); returns their statuses.
	 */
	private static List<Integer> duringPause(StackApp app) {
		app.deleteBudgets();
		assertThat(app.get("/keyed").status()).isEqualTo(200);
		List<Integer> statuses = new ArrayList<>();
		try (RedisTestServer.Pause pause = RedisTestServer.shared().pauseWrites(Duration.ofSeconds(60))) {
			for (int i = 0; i < DURING_PAUSE; i++) {
				statuses.add(app.get("/keyed").status());
			}
		}
		return statuses;
	}

	private static void assertTheBudgetShowsOnlyTheFirstRequest(StackApp app, CapturedOutput output) {
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			Set<String> keys = app.redisKeys();
			assertThat(keys).hasSize(1);
			assertThat(RedisTestServer.shared().template().opsForHash().get(keys.iterator().next(), "n"))
				.isEqualTo("1");
		});
		List<Integer> after = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			after.add(app.get("/keyed").status());
		}
		assertThat(after).containsExactly(200, 200, 200, 200, 200, 200, 200, 200, 200, 429);
		assertThat(app.context().getBean(MeterRegistry.class).get("ratelimit.timeouts").tag("cause", "redis")
			.functionCounter()
			.count()).isEqualTo(DURING_PAUSE);
		assertThat(output.getOut()).contains("A rate-limit decision timed out because Redis was late (cause=redis)");
	}

}

package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rules with {@code prefetch} on every stack and a real Redis: a key's permits taken in batches admit exactly the
 * limit and refuse the next, with headers that never tell more than the budget Redis left (less what was spent since);
 * what an instance holds comes back when its key goes quiet (at shutdown: {@code RateLimitPrefetchShutdownOnEveryStackTests}); and the combinations that cannot work stop startup naming
 * {@code ratelimit.rules.<name>.prefetch}.
 */
class RateLimitPrefetchOnEveryStackTests {

	static final Map<String, String> HOT = Map.of("ratelimit.rules.hot.paths", "/api/**",
			"ratelimit.rules.hot.key", "header:X-Api-Key", "ratelimit.rules.hot.limit", "5",
			"ratelimit.rules.hot.window", "1h", "ratelimit.rules.hot.prefetch", "2");

	private static final StackApps apps = new StackApps(HOT);

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void admitsExactlyTheLimitAndRefusesTheNextWithTruthfulHeaders(WebStack stack) {
		StackApp app = apps.on(stack);
		List<String> remaining = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			StackApp.Reply reply = app.get("/api/orders", "X-Api-Key", "alpha");
			assertThat(reply.status()).as("request %d", i + 1).isEqualTo(200);
			remaining.add(reply.header("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow());
		}
		// a batch of 2: Redis left 3, one held; topped up by 2 once none is held: Redis left 1, two held; a top-up
		// refused, the last permit alone; each request told what Redis left and what the instance holds
		// the window opened by the first request: its reset counts down from an hour while the test runs
		assertThat(remaining).allSatisfy((header) -> assertThat(header).matches("\"hot\";r=\\d;t=(3600|3599|3598)"));
		assertThat(remaining.stream().map((header) -> header.substring(0, header.indexOf(";t=")))).containsExactly(
				"\"hot\";r=4", "\"hot\";r=3", "\"hot\";r=2", "\"hot\";r=1", "\"hot\";r=0");
		StackApp.Reply refused = app.get("/api/orders", "X-Api-Key", "alpha");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"hot\";r=0;t=3600");
		assertThat(app.get("/api/orders", "X-Api-Key", "beta").status()).as("another key's budget").isEqualTo(200);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void givesBackWhatAKeyGoneQuietHoldsWithoutAnotherRequest(WebStack stack) {
		StackApp app = apps.on(stack);
		String key = "quiet-" + java.util.UUID.randomUUID().toString().substring(0, 8);
		assertThat(app.get("/api/orders", "X-Api-Key", key).header("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"hot\";r=4;t=3600");
		dev.ratelimit.redis.RedisRateLimiter redis = dev.ratelimit.redis.RedisRateLimiter
			.builder(dev.ratelimit.Algorithm.FIXED_WINDOW, dev.ratelimit.testsupport.RedisTestServer.shared().template())
			.keyPrefix(app.keyPrefix())
			.build();
		List<dev.ratelimit.RateLimit> limits = List.of(dev.ratelimit.RateLimit.of(5, java.time.Duration.ofHours(1)));
		assertThat(redis.inspect("hot:header:" + key, limits).get(0).remaining()).as("a batch of 2 taken").isEqualTo(3);
		// the instance's sweep, a second after the key's last request
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(redis.inspect("hot:header:" + key, limits).get(0).remaining()).isEqualTo(4));
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void refusesTheSlidingWindowLogAtStartup(WebStack stack) {
		assertThat(startupFailure(stack, Map.of("ratelimit.rules.logged.algorithm", "sliding-window-log",
				"ratelimit.rules.logged.prefetch", "2")))
			.contains("ratelimit.rules.logged.prefetch")
			.contains("use sliding-window-counter");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void refusesABatchBelowOneAtStartup(WebStack stack) {
		assertThat(startupFailure(stack, Map.of("ratelimit.rules.logged.prefetch", "0")))
			.contains("ratelimit.rules.logged.prefetch")
			.contains("at least 1");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void refusesABatchAboveTheLimitAtStartup(WebStack stack) {
		assertThat(startupFailure(stack, Map.of("ratelimit.rules.logged.prefetch", "11")))
			.contains("ratelimit.rules.logged.prefetch")
			.contains("at most the rule's smallest limit at once, 10");
	}

	private static String startupFailure(WebStack stack, Map<String, String> prefetch) {
		Map<String, String> properties = new java.util.HashMap<>(Map.of("ratelimit.rules.logged.paths", "/open",
				"ratelimit.rules.logged.limit", "10", "ratelimit.rules.logged.window", "1m"));
		properties.putAll(prefetch);
		Throwable[] failure = new Throwable[1];
		assertThatThrownBy(() -> stack.start(properties).close()).satisfies((thrown) -> failure[0] = thrown);
		Throwable root = NestedExceptionUtils.getMostSpecificCause(failure[0]);
		return root.getMessage();
	}

}

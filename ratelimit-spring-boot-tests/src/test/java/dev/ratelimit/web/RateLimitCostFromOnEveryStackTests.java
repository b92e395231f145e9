package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Costs settled after the response ({@code cost-from=header:<Name>}) on every stack: the rule's {@code cost} is
 * reserved before the handler, the actual cost the handler sets in a header is charged after it (the difference, past
 * the limit if need be, or the excess given back), the header is kept from the client unless exposed, and a response
 * that tells no cost keeps the reservation.
 */
class RateLimitCostFromOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.ofEntries(Map.entry("ratelimit.rules.tokens.paths", "/chat"),
			Map.entry("ratelimit.rules.tokens.key", "header:X-User"), Map.entry("ratelimit.rules.tokens.limit", "1000"),
			Map.entry("ratelimit.rules.tokens.window", "1d"), Map.entry("ratelimit.rules.tokens.cost", "100"),
			Map.entry("ratelimit.rules.tokens.cost-from", "header:X-Tokens-Used"),
			Map.entry("ratelimit.rules.shown.paths", "/chat-shown"), Map.entry("ratelimit.rules.shown.limit", "1000"),
			Map.entry("ratelimit.rules.shown.window", "1d"), Map.entry("ratelimit.rules.shown.cost", "100"),
			Map.entry("ratelimit.rules.shown.key", "header:X-User"),
			Map.entry("ratelimit.rules.shown.cost-from", "header:X-Cost"),
			Map.entry("ratelimit.rules.shown.cost-from-expose", "true"),
			Map.entry("ratelimit.rules.guarded.paths", "/chat-guarded"), Map.entry("ratelimit.rules.guarded.limit", "1000"),
			Map.entry("ratelimit.rules.guarded.window", "1d"), Map.entry("ratelimit.rules.guarded.cost", "100"),
			Map.entry("ratelimit.rules.guarded.key", "header:X-User"),
			Map.entry("ratelimit.rules.guarded.cost-from", "header:X-Tokens-Used")), Chat.class);

	@AfterAll
	static void stop() {
		apps.close();
	}

	private static long remaining(StackApp.Reply reply, String policy) {
		String value = reply.header("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow();
		int at = value.indexOf("\"" + policy + "\";r=") + policy.length() + 5;
		return Long.parseLong(value.substring(at, value.indexOf(';', at)));
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void reservesTheCostThenChargesTheActualOneTheHandlerTells(WebStack stack) {
		StackApp app = apps.on(stack);
		String user = "u-" + UUID.randomUUID().toString().substring(0, 8);
		StackApp.Reply first = app.get("/chat?tokens=30", "X-User", user);
		assertThat(first.status()).isEqualTo(200);
		// the reservation: 100 of 1000
		assertThat(remaining(first, "tokens")).isEqualTo(900);
		// the header is the application's business with the rule, not the client's
		assertThat(first.header("X-Tokens-Used")).isEmpty();
		// settled with 30: the next request finds 1000 - 30, and reserves its 100
		await().atMost(Duration.ofSeconds(10))
			.until(() -> remaining(app.get("/chat?tokens=0", "X-User", user), "tokens") == 870);
		// 1000 - 30 - 0 left; a response past the budget is charged whole: the work is done
		StackApp.Reply heavy = app.get("/chat?tokens=2000", "X-User", user);
		assertThat(heavy.status()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> app.get("/chat?tokens=1", "X-User", user).status() == 429);
		StackApp.Reply refused = app.get("/chat?tokens=1", "X-User", user);
		assertThat(refused.body()).contains("Rate limit 'tokens' of 1000 per");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void keepsTheReservationOfAResponseThatTellsNoCost(WebStack stack) {
		StackApp app = apps.on(stack);
		String user = "u-" + UUID.randomUUID().toString().substring(0, 8);
		assertThat(app.get("/chat", "X-User", user).status()).isEqualTo(200);
		assertThat(app.get("/chat?tokens=oops", "X-User", user).status()).isEqualTo(200);
		// two reservations of 100 stand; a third request reserves its own
		await().atMost(Duration.ofSeconds(10))
			.until(() -> remaining(app.get("/chat?tokens=100", "X-User", user), "tokens") == 700);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void keepsTheReservationOfAResponseWhoseCostIsOutOfRangeOrNoWholeNumber(WebStack stack) {
		StackApp app = apps.on(stack);
		String user = "u-" + UUID.randomUUID().toString().substring(0, 8);
		// past RateLimiter.MAX_COST (2^53 - 1), Long.MAX_VALUE, a fraction: none is a cost the scripts take exactly
		for (String tokens : new String[] { "9007199254740992", "9223372036854775807", "2.5" }) {
			assertThat(app.get("/chat?tokens=" + tokens, "X-User", user).status()).isEqualTo(200);
		}
		// three reservations of 100 stand (none charged past the limit, none given back); a fourth reserves its own
		await().atMost(Duration.ofSeconds(10))
			.until(() -> remaining(app.get("/chat?tokens=100", "X-User", user), "tokens") == 600);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void leavesAnExposedCostHeaderInTheResponse(WebStack stack) {
		StackApp app = apps.on(stack);
		String user = "u-" + UUID.randomUUID().toString().substring(0, 8);
		StackApp.Reply shown = app.get("/chat-shown?tokens=400", "X-User", user);
		assertThat(shown.header("X-Cost")).hasValue("400");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> remaining(app.get("/chat-shown?tokens=100", "X-User", user), "shown") == 500);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void givesBackTheReservationOfARequestALaterStageRefused(WebStack stack) {
		StackApp app = apps.on(stack);
		String user = "u-" + UUID.randomUUID().toString().substring(0, 8);
		assertThat(app.get("/chat-guarded?tokens=10", "X-User", user).status()).isEqualTo(200);
		// the handler's own limit (one a minute, after the rule's stage) refuses the next ones: they never ran, and
		// the 100 each reserved comes back
		for (int i = 0; i < 3; i++) {
			assertThat(app.get("/chat-guarded?tokens=10", "X-User", user).status()).isEqualTo(429);
		}
		dev.ratelimit.RateLimiter limiter = app.context().getBean("fixedWindowRateLimiter", dev.ratelimit.RateLimiter.class);
		java.util.List<dev.ratelimit.RateLimit> daily = java.util.List.of(dev.ratelimit.RateLimit.of(1000, Duration.ofDays(1)));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> limiter.inspect("guarded:header:" + user, daily).get(0).remaining() == 990);
	}

	@RestController
	static class Chat {

		@dev.ratelimit.RateLimited(name = "guard", limit = 1, window = "1m", key = "header:X-User")
		@GetMapping("/chat-guarded")
		ResponseEntity<String> guarded(@RequestParam String tokens) {
			return ResponseEntity.ok().header("X-Tokens-Used", tokens).body("answered");
		}


		@GetMapping("/chat")
		ResponseEntity<String> chat(@RequestParam(required = false) String tokens) {
			ResponseEntity.BodyBuilder answer = ResponseEntity.ok();
			if (tokens != null) {
				answer.header("X-Tokens-Used", tokens);
			}
			return answer.body("answered");
		}

		@GetMapping("/chat-shown")
		ResponseEntity<String> shown(@RequestParam String tokens) {
			return ResponseEntity.ok().header("X-Cost", tokens).body("answered");
		}

	}

}

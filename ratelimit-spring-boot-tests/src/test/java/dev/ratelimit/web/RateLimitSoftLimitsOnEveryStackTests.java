package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.ratelimit.rules.flow.RateLimitContext;

/**
 * Soft rules ({@code enforce=false}) on every stack: decided, charged and announced in headers, never refused, and
 * told to the handler, as a {@link RateLimitContext} argument and as the request or exchange attribute; a shadow rule
 * on the same request is not told.
 */
class RateLimitSoftLimitsOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.of("ratelimit.rules.search.paths", "/search",
			"ratelimit.rules.search.limit", "2", "ratelimit.rules.search.window", "15m", "ratelimit.rules.search.enforce",
			"false", "ratelimit.rules.watch.paths", "/search", "ratelimit.rules.watch.limit", "1",
			"ratelimit.rules.watch.window", "15m", "ratelimit.rules.watch.shadow", "true"), Search.class);

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void answersWithLessOverASoftLimitAndRefusesNothing(WebStack stack) {
		StackApp app = apps.on(stack);
		StackApp.Reply first = app.get("/search");
		assertThat(first.status()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("full: 1 left, exceeded=false, watch told=false, attribute=true");
		assertThat(app.get("/search").body()).startsWith("full: 0 left");
		for (int i = 0; i < 3; i++) {
			StackApp.Reply over = app.get("/search");
			assertThat(over.status()).isEqualTo(200);
			assertThat(over.body()).isEqualTo("lite: 0 left, exceeded=true, watch told=false, attribute=true");
			// decided and announced, never refused
			assertThat(over.header("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.contains("\"search\";r=0;");
			assertThat(over.header("Retry-After")).isEmpty();
		}
		// a request no rule applies to gets an empty context
		assertThat(app.get("/open-search").body()).isEqualTo("full: none, exceeded=false");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aSoftRuleThatWouldRefuseARequestWithoutItsKeyStopsTheApplication(WebStack stack) {
		assertThatThrownBy(() -> stack.start(Map.of("ratelimit.rules.strict.paths", "/search", "ratelimit.rules.strict.limit",
				"2", "ratelimit.rules.strict.window", "15m", "ratelimit.rules.strict.key", "header:X-Tenant",
				"ratelimit.rules.strict.missing-key", "reject", "ratelimit.rules.strict.enforce", "false"), Search.class)
			.close()).satisfies((ex) -> assertThat(messages(ex))
				.contains("Property ratelimit.rules.strict.missing-key with value 'reject' is invalid")
				.contains("a soft rule (enforce false) never refuses a request")
				.contains("use client-address or skip, or enforce the rule"));
	}

	static String messages(Throwable ex) {
		StringBuilder all = new StringBuilder();
		for (Throwable each = ex; each != null; each = each.getCause()) {
			all.append(each.getMessage()).append('\n');
		}
		return all.toString();
	}

	@RestController
	static class Search {

		@GetMapping("/search")
		String search(RateLimitContext limits,
				@RequestAttribute(name = RateLimitContext.ATTRIBUTE, required = false) Object attribute) {
			return (limits.exceeded("search") ? "lite: " : "full: ") + limits.remaining("search").orElseThrow()
					+ " left, exceeded=" + limits.exceeded() + ", watch told=" + !limits.limits("watch").isEmpty()
					+ ", attribute=" + (attribute == limits);
		}

		@GetMapping("/open-search")
		String open(RateLimitContext limits) {
			return "full: " + (limits.limits().isEmpty() ? "none" : limits.limits()) + ", exceeded=" + limits.exceeded();
		}

	}

}

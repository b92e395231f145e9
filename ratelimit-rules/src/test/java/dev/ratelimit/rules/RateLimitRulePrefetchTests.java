package dev.ratelimit.rules;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimited;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A rule's {@code prefetch}: kept where the permits an instance takes at once can be spent in its memory, refused,
 * naming the attribute and the fix, where they cannot.
 */
class RateLimitRulePrefetchTests {

	private static RateLimitRule.Builder rule(Algorithm algorithm, RateLimit... limits) {
		return RateLimitRule.builder("hot", List.of(limits), algorithm, Objects.requireNonNull(RuleKey.parse("ip")),
				"ratelimit.rules.hot");
	}

	@Test
	void keepsABatchUpToTheSmallestLimitOfACountingAlgorithm() {
		for (Algorithm algorithm : List.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_COUNTER,
				Algorithm.TOKEN_BUCKET, Algorithm.GCRA)) {
			RateLimitRule rule = rule(algorithm, RateLimit.of(100, Duration.ofSeconds(1)),
					RateLimit.of(20, Duration.ofMinutes(1))).prefetch(20).build();
			assertThat(rule.prefetch()).isEqualTo(20);
			assertThat(rule.toBuilder().build().prefetch()).as("derived rules keep it").isEqualTo(20);
		}
		assertThat(rule(Algorithm.GCRA, RateLimit.of(10, Duration.ofSeconds(1))).build().prefetch()).as("by default")
			.isZero();
	}

	@Test
	void refusesABatchBelowOne() {
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> rule(Algorithm.FIXED_WINDOW, RateLimit.of(10, Duration.ofSeconds(1))).prefetch(0))
			.satisfies((ex) -> assertThat(ex.getAttribute()).isEqualTo("prefetch"))
			.withMessageContaining("at least 1");
	}

	@Test
	void refusesABatchAboveTheSmallestLimitOrBurstOrAPlansLimit() {
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> rule(Algorithm.FIXED_WINDOW, RateLimit.of(100, Duration.ofSeconds(1)),
					RateLimit.of(20, Duration.ofMinutes(1))).prefetch(21).build())
			.satisfies((ex) -> assertThat(ex.getAttribute()).isEqualTo("prefetch"))
			.withMessageContaining("at most the rule's smallest limit at once, 20");
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> rule(Algorithm.TOKEN_BUCKET, RateLimit.of(100, Duration.ofSeconds(1)).withBurst(10))
				.prefetch(11)
				.build())
			.withMessageContaining("smallest limit (or burst) at once, 10");
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> rule(Algorithm.FIXED_WINDOW, RateLimit.of(100, Duration.ofSeconds(1)))
				.plans(Objects.requireNonNull(PlanSource.parse("header:X-Plan")),
						Map.of("free", List.of(RateLimit.of(5, Duration.ofSeconds(1)))))
				.prefetch(10)
				.build())
			.withMessageContaining("at once, 5");
	}

	@Test
	void refusesTheSlidingWindowLogAndTheOptionsThatDecideInRedisOneRequestAtATime() {
		RateLimit limit = RateLimit.of(100, Duration.ofSeconds(1));
		assertThat(refusal(rule(Algorithm.SLIDING_WINDOW_LOG, limit))).contains("use sliding-window-counter");
		assertThat(refusal(rule(Algorithm.FIXED_WINDOW, limit).countStatuses(ResponseStatuses.parse(List.of("5xx")))))
			.contains("count-statuses");
		assertThat(refusal(rule(Algorithm.FIXED_WINDOW, limit).costFrom(ResponseCost.header("hot", "header:X-Cost", false))))
			.contains("cost-from");
		assertThat(refusal(rule(Algorithm.FIXED_WINDOW, limit).concurrency(RateLimit.of(2, Duration.ofMinutes(1)))))
			.contains("concurrency");
		assertThat(refusal(rule(Algorithm.FIXED_WINDOW, limit).block(BlockPolicy.of(Duration.ofMinutes(1)))))
			.contains("block-for");
	}

	private static String refusal(RateLimitRule.Builder rule) {
		InvalidRateLimitRuleException refused = org.junit.jupiter.api.Assertions
			.assertThrows(InvalidRateLimitRuleException.class, () -> rule.prefetch(10).build());
		assertThat(refused.getAttribute()).isEqualTo("prefetch");
		return refused.getMessage();
	}

	@Test
	void readsTheAnnotationsPrefetch() throws NoSuchMethodException {
		List<RateLimitRule> rules = TestRules.factory(Algorithm.FIXED_WINDOW)
			.forHandler(Handlers.class.getDeclaredMethod("hot"), Handlers.class);
		assertThat(rules).singleElement().satisfies((rule) -> assertThat(rule.prefetch()).isEqualTo(25));
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> TestRules.factory(Algorithm.FIXED_WINDOW)
				.forHandler(Handlers.class.getDeclaredMethod("tooMany"), Handlers.class))
			.withMessageContaining("prefetch '101' is invalid");
	}

	static class Handlers {

		@RateLimited(limit = 100, window = "1s", prefetch = 25)
		void hot() {
		}

		@RateLimited(limit = 100, window = "1s", prefetch = 101)
		void tooMany() {
		}

	}

}

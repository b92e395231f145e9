package dev.ratelimit.rules;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;

import org.springframework.web.util.pattern.PathPatternParser;

import static org.assertj.core.api.Assertions.assertThat;

class RuleDescriptionTests {

	@Test
	void showsEveryOptionInForceOnOneLine() {
		RateLimitRule rule = RateLimitRule
			.builder("chat", List.of(RateLimit.of(100, Duration.ofMinutes(1))), Algorithm.TOKEN_BUCKET,
					Objects.requireNonNull(RuleKey.parse("header:X-Api-Key")), "ratelimit.rules.chat")
			.paths(List.of(PathPatternParser.defaultInstance.parse("/chat/**")), Set.of("POST"))
			.excludePaths(List.of(PathPatternParser.defaultInstance.parse("/chat/health")))
			.missingKey(MissingKey.SKIP)
			.allowKeys(Set.of("internal"))
			.cost(500)
			.costFrom(ResponseCost.header("chat", "header:X-Tokens-Used", false))
			.plans(Objects.requireNonNull(PlanSource.parse("header:X-Plan")),
					Map.of("gold", List.of(RateLimit.of(1000, Duration.ofMinutes(1)))))
			.countStatuses(ResponseStatuses.parse(List.of("2xx")))
			.condition("businessHours")
			.concurrency(RateLimit.of(2, Duration.ofMinutes(1)))
			.enforce(false)
			.build();
		assertThat(rule.describe()).doesNotContain("\n")
			.isEqualTo("Rate limit 'chat': 100 per 1m and 2 in flight (lease 1m), token-bucket, on [/chat/**] [POST]"
					+ " except [/chat/health], key header:X-Api-Key (missing: skip), 1 keys exempt, cost 500 reserved,"
					+ " settled from header X-Tokens-Used (hidden), plans gold=[1000/1m] from header X-Plan,"
					+ " counts statuses 2xx, when bean businessHours says so, soft (never refuses; the handler is told)");
	}


	@Test
	void describesEachPolicyAsTheHeadersNameIt() {
		RateLimitRule rule = RateLimitRule
			.builder("search", List.of(RateLimit.of(10, Duration.ofSeconds(1)), RateLimit.of(1000, Duration.ofHours(1))),
					Algorithm.TOKEN_BUCKET, Objects.requireNonNull(RuleKey.parse("header:X-Api-Key")),
					"ratelimit.rules.search")
			.concurrency(RateLimit.of(2, Duration.ofMinutes(1)))
			.build();
		assertThat(rule.describePolicies()).containsExactly(
				Map.entry("search-1s", "10 per second per value of header X-Api-Key"),
				Map.entry("search-1h", "1000 per hour per value of header X-Api-Key"),
				Map.entry("search", "2 in flight per value of header X-Api-Key"));
	}

	@Test
	void describesAQuotaItsBurstCostAndPlansInWords() {
		RateLimitRule rule = RateLimitRule
			.builder("quota", List.of(new RateLimit(10_000, Duration.ofDays(1), 20_000)), Algorithm.TOKEN_BUCKET,
					Objects.requireNonNull(RuleKey.parse("principal")), "ratelimit.rules.quota")
			.period(CalendarPeriod.DAY, java.time.ZoneId.of("Europe/Madrid"))
			.cost(5)
			.plans(Objects.requireNonNull(PlanSource.parse("header:X-Plan")),
					Map.of("gold", List.of(RateLimit.of(100, Duration.ofSeconds(10)))))
			.concurrency(RateLimit.of(3, Duration.ofMinutes(1)))
			.build();
		assertThat(rule.describePolicies()).containsExactly(
				Map.entry("quota", "10000 per day (Europe/Madrid) per user, bursts of up to 20000; a request costs 5;"
						+ " other plans: gold 100 per 10 seconds"),
				Map.entry("quota-concurrency", "3 in flight per user"));
	}

	@Test
	void describesEveryKindOfKey() {
		Map<String, String> whose = new java.util.LinkedHashMap<>();
		for (String key : List.of("ip", "param:tenant", "bean:tenantResolver", "#order.customerId")) {
			RateLimitRule rule = RateLimitRule
				.builder("k", List.of(RateLimit.of(1, Duration.ofMillis(1500))), Algorithm.FIXED_WINDOW,
						Objects.requireNonNull(RuleKey.parse(key)), "test")
				.build();
			whose.put(key, rule.describePolicies().get("k"));
		}
		assertThat(whose).containsExactly(Map.entry("ip", "1 per 1500ms per client address"),
				Map.entry("param:tenant", "1 per 1500ms per value of parameter tenant"),
				Map.entry("bean:tenantResolver", "1 per 1500ms per key of bean tenantResolver"),
				Map.entry("#order.customerId", "1 per 1500ms per value of #order.customerId"));
	}
	@Test
	void showsThePermitsAnInstanceTakesAtOnce() {
		RateLimitRule rule = RateLimitRule
			.builder("hot", List.of(RateLimit.of(1000, Duration.ofMinutes(1))), Algorithm.GCRA,
					Objects.requireNonNull(RuleKey.parse("ip")), "ratelimit.rules.hot")
			.paths(List.of(PathPatternParser.defaultInstance.parse("/hot")), Set.of())
			.prefetch(50)
			.build();
		assertThat(rule.describe())
			.isEqualTo("Rate limit 'hot': 1000 per 1m, gcra, prefetch 50, on [/hot] (all methods), key ip, cost 1");
	}

	@Test
	void leavesOutWhatIsNotInForce() {
		RateLimitRule rule = RateLimitRule
			.builder("api", List.of(RateLimit.of(5, Duration.ofSeconds(10))), Algorithm.FIXED_WINDOW,
					Objects.requireNonNull(RuleKey.parse("ip")), "ratelimit.rules.api")
			.paths(List.of(PathPatternParser.defaultInstance.parse("/api/**")), Set.of())
			.build();
		assertThat(rule.describe())
			.isEqualTo("Rate limit 'api': 5 per 10s, fixed-window, on [/api/**] (all methods), key ip, cost 1");
	}

}

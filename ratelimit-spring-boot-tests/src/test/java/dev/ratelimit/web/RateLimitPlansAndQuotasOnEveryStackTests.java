package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import dev.ratelimit.rules.RateLimitRule;

/**
 * What a client cannot choose, on every stack: a plan header is believed only from a trusted proxy and only
 * when it names a plan the rule configures; a calendar quota is a fixed window whatever the default algorithm.
 * The trusted proxy is 127.0.0.2; every other request comes from 127.0.0.1.
 */
class RateLimitPlansAndQuotasOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.ofEntries(Map.entry("ratelimit.trusted-proxies", "127.0.0.2/32"),
			Map.entry("ratelimit.default-algorithm", "token-bucket"), Map.entry("ratelimit.rules.tiered.paths", "/keyed"),
			Map.entry("ratelimit.rules.tiered.key", "header:X-Api-Key"), Map.entry("ratelimit.rules.tiered.limit", "1"),
			Map.entry("ratelimit.rules.tiered.window", "1m"), Map.entry("ratelimit.rules.tiered.plan", "header:X-Plan"),
			Map.entry("ratelimit.rules.tiered.plans.gold.limit", "3"),
			Map.entry("ratelimit.rules.tiered.plans.gold.window", "1m"), Map.entry("ratelimit.rules.daily.paths", "/quota"),
			Map.entry("ratelimit.rules.daily.key", "header:X-Api-Key"), Map.entry("ratelimit.rules.daily.limit", "2"),
			Map.entry("ratelimit.rules.daily.period", "day")));

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void believesAPlanHeaderOnlyFromATrustedProxy(WebStack stack) {
		StackApp app = apps.on(stack);
		// a client of its own: X-Plan is ignored, the rule's own limit of 1 applies
		StackApp.Reply direct = app.get("/keyed", "X-Api-Key", "direct", "X-Plan", "gold");
		assertThat(direct.status()).isEqualTo(200);
		assertThat(direct.header("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"tiered\";q=1;w=60");
		assertThat(app.get("/keyed", "X-Api-Key", "direct", "X-Plan", "gold").status()).isEqualTo(429);
		// through the trusted proxy the plan is believed
		for (int i = 0; i < 3; i++) {
			StackApp.Reply proxied = app.getFrom("127.0.0.2", "/keyed", "X-Api-Key", "proxied", "X-Plan", "gold");
			assertThat(proxied.status()).isEqualTo(200);
			assertThat(proxied.header("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"tiered\";q=3;w=60");
		}
		assertThat(app.getFrom("127.0.0.2", "/keyed", "X-Api-Key", "proxied", "X-Plan", "gold").status())
			.isEqualTo(429);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void givesAPlanNameTheRuleDoesNotConfigureTheRulesOwnLimits(WebStack stack) {
		StackApp app = apps.on(stack);
		for (String plan : new String[] { "unlimited", "platinum" }) {
			for (String from : new String[] { "127.0.0.1", "127.0.0.2" }) {
				String key = plan + "-" + from;
				StackApp.Reply first = app.getFrom(from, "/keyed", "X-Api-Key", key, "X-Plan", plan);
				assertThat(first.status()).as("%s from %s", plan, from).isEqualTo(200);
				assertThat(first.header("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
					.hasValue("\"tiered\";q=1;w=60");
				assertThat(app.getFrom(from, "/keyed", "X-Api-Key", key, "X-Plan", plan).status())
					.as("%s from %s", plan, from)
					.isEqualTo(429);
			}
		}
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void countsACalendarQuotaInAFixedWindowWhateverTheDefaultAlgorithm(WebStack stack) {
		StackApp app = apps.on(stack);
		RateLimitRule daily = app.context().getBean(RateLimitRuleRegistry.class).all().stream()
			.filter((rule) -> rule.name().equals("daily"))
			.findFirst()
			.orElseThrow();
		assertThat(daily.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
		assertThat(app.get("/quota", "X-Api-Key", "q").status()).isEqualTo(200);
		assertThat(app.get("/quota", "X-Api-Key", "q").status()).isEqualTo(200);
		assertThat(app.get("/quota", "X-Api-Key", "q").status()).isEqualTo(429);
		assertThat(app.redisKeys()).anyMatch((key) -> key.contains(":fixed:daily:"))
			.noneMatch((key) -> key.contains(":token-bucket:daily:"));
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void letsACalendarQuotasKeyExpireWhenItsPeriodEnds(WebStack stack) {
		StackApp app = apps.on(stack);
		assertThat(app.get("/quota", "X-Api-Key", "ends").status()).isEqualTo(200);
		String key = app.redisKeys().stream().filter((k) -> k.contains(":fixed:daily:header:ends:")).findFirst()
			.orElseThrow();
		long untilMidnight = Duration.between(Instant.now(),
				LocalDate.now(ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant()).toMillis();
		long ttl = app.context().getBean(StringRedisTemplate.class).getExpire(key, TimeUnit.MILLISECONDS);
		// at the end of the day, not a day after the first request (rounded up to the second)
		assertThat(ttl).isPositive().isLessThanOrEqualTo(untilMidnight + 1_000);
	}

}

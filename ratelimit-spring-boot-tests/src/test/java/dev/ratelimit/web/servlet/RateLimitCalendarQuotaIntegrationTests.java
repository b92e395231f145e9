package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.web.TestClockConfiguration;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calendar quotas on Tomcat and a real Redis, with a clock the test moves: a day quota that resets at
 * local midnight, across a daylight-saving change, and a month quota that resets on the first.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, TestClockConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.rules.daily.paths=/api/**", "ratelimit.rules.daily.period=day",
				"ratelimit.rules.daily.zone=Europe/Berlin", "ratelimit.rules.daily.limit=2",
				"ratelimit.rules.monthly.paths=/open", "ratelimit.rules.monthly.period=month",
				"ratelimit.rules.monthly.limit=1", "ratelimit.rules.million.paths=/search",
				"ratelimit.rules.million.period=day", "ratelimit.rules.million.limit=1000000" })
@TestMethodOrder(OrderAnnotation.class)
class RateLimitCalendarQuotaIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private MutableClock clock;

	@Test
	@Order(1)
	void resetsAMonthQuotaOnTheFirstOfTheMonth() throws Exception {
		moveTo("2026-02-27T12:00:00Z");
		HttpResponse<String> allowed = get(this.port, "/open");
		assertThat(allowed.statusCode()).isEqualTo(200);
		// February 2026 has 28 days; 36 hours of it are left
		assertThat(allowed.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"monthly\";q=1;w=2419200");
		assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"monthly\";r=0;t=129600");
		HttpResponse<String> refused = get(this.port, "/open");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("129600");
		moveTo("2026-03-01T00:00:00Z");
		HttpResponse<String> march = get(this.port, "/open");
		assertThat(march.statusCode()).isEqualTo(200);
		assertThat(march.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"monthly\";q=1;w=2678400");
	}

	@Test
	@Order(2)
	void resetsADayQuotaAtLocalMidnightAcrossADaylightSavingChange() throws Exception {
		// 23:00 in Berlin (UTC+1) on the Saturday before summer time starts
		moveTo("2026-03-28T22:00:00Z");
		for (int remaining = 1; remaining >= 0; remaining--) {
			HttpResponse<String> allowed = get(this.port, "/api/items");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"daily\";q=2;w=86400");
			assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
				.hasValue("\"daily\";r=" + remaining + ";t=3600");
		}
		HttpResponse<String> refused = get(this.port, "/api/items");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("3600");
		// local midnight: Sunday has 23 hours, the clocks going from 02:00 to 03:00
		moveTo("2026-03-28T23:00:00Z");
		HttpResponse<String> sunday = get(this.port, "/api/items");
		assertThat(sunday.statusCode()).isEqualTo(200);
		assertThat(sunday.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"daily\";q=2;w=82800");
		assertThat(sunday.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"daily\";r=1;t=82800");
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
		// Monday's midnight in summer time: 22:00 UTC
		moveTo("2026-03-29T22:00:00Z");
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
	}

	@Test
	@Order(3)
	void countsAMillionADay() throws Exception {
		HttpResponse<String> allowed = get(this.port, "/search");
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.startsWith("\"million\";r=999999;");
	}

	private void moveTo(String instant) {
		this.clock.advance(Duration.between(this.clock.instant(), Instant.parse(instant)));
	}

}

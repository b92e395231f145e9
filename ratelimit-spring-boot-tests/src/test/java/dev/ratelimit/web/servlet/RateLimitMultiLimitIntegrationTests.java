package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.TokenBucketRateLimiter;
import dev.ratelimit.testsupport.MutableClock;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules with several limits and the smooth algorithms, end to end, with a clock the test moves.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.rules.search.paths=/search", "ratelimit.rules.search.limits[0].limit=2",
				"ratelimit.rules.search.limits[0].window=1s", "ratelimit.rules.search.limits[1].limit=3",
				"ratelimit.rules.search.limits[1].window=1h", "ratelimit.rules.both.paths=/both",
				"ratelimit.rules.both.limits[0].limit=2", "ratelimit.rules.both.limits[0].window=1s",
				"ratelimit.rules.both.limits[1].limit=2", "ratelimit.rules.both.limits[1].window=1h",
				"ratelimit.rules.bucket.paths=/bucket", "ratelimit.rules.bucket.algorithm=token-bucket",
				"ratelimit.rules.bucket.limit=60", "ratelimit.rules.bucket.window=1m",
				"ratelimit.rules.bucket.burst=2" })
@Import(RateLimitMultiLimitIntegrationTests.Clocked.class)
class RateLimitMultiLimitIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private MutableClock clock;

	@Test
	void chargesEveryLimitOfARuleOrNone() throws Exception {
		HttpResponse<String> first = get(this.port, "/search");
		assertThat(first.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"search-1s\";q=2;w=1, \"search-1h\";q=3;w=3600");
		assertThat(first.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"search-1s\";r=1;t=1, \"search-1h\";r=2;t=3600");
		assertThat(get(this.port, "/search").statusCode()).isEqualTo(200);

		HttpResponse<String> perSecond = get(this.port, "/search");
		assertThat(perSecond.statusCode()).isEqualTo(429);
		assertThat(perSecond.headers().firstValue("Retry-After")).hasValue("1");
		// the hourly limit admitted the request but was not charged for it
		assertThat(perSecond.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"search-1s\";r=0;t=1, \"search-1h\";r=1;t=3600");
		assertThat((List<String>) JsonPath.read(perSecond.body(), "$.violatedPolicies")).containsExactly("search-1s");

		this.clock.advance(Duration.ofSeconds(1));
		assertThat(get(this.port, "/search").statusCode()).isEqualTo(200);
		HttpResponse<String> hourly = get(this.port, "/search");
		assertThat(hourly.statusCode()).isEqualTo(429);
		assertThat(hourly.headers().firstValue("Retry-After")).hasValue("3599");
		assertThat((List<String>) JsonPath.read(hourly.body(), "$.violatedPolicies")).containsExactly("search-1h");
		assertThat(hourly.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"search-1s\";r=1;t=1, \"search-1h\";r=0;t=3599");
	}

	@Test
	void waitsForTheLongestOfTheViolatedLimits() throws Exception {
		get(this.port, "/both");
		get(this.port, "/both");
		HttpResponse<String> rejected = get(this.port, "/both");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Retry-After")).hasValue("3600");
		assertThat((List<String>) JsonPath.read(rejected.body(), "$.violatedPolicies")).containsExactly("both-1s",
				"both-1h");
		assertThat((String) JsonPath.read(rejected.body(), "$.detail")).isEqualTo(
				"Rate limits 'both-1s' of 2 per second and 'both-1h' of 2 per hour exceeded; retry after 3600 seconds.");
	}

	@Test
	void refillsATokenBucketOneTokenAtATime() throws Exception {
		assertThat(get(this.port, "/bucket").headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"bucket\";r=1;t=1");
		assertThat(get(this.port, "/bucket").headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"bucket\";q=60;w=60");
		HttpResponse<String> empty = get(this.port, "/bucket");
		assertThat(empty.statusCode()).isEqualTo(429);
		assertThat(empty.headers().firstValue("Retry-After")).hasValue("1");
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(get(this.port, "/bucket").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/bucket").statusCode()).isEqualTo(429);
	}

	@Test
	void appliesTheLimitsOfAnAnnotation() throws Exception {
		HttpResponse<String> first = get(this.port, "/annotated/smooth");
		assertThat(first.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"Endpoints.annotatedSmooth-1s\";q=2;w=1, \"Endpoints.annotatedSmooth-1h\";q=3;w=3600");
		assertThat(get(this.port, "/annotated/smooth").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/annotated/smooth").statusCode()).isEqualTo(429);
		assertThat(this.redis.keys(this.prefix + ":gcra:{Endpoints.annotatedSmooth:ip:127.0.0.1}:*")).hasSize(2);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Clocked {

		@Bean
		MutableClock testClock() {
			return new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
		}

		@Bean
		FixedWindowRateLimiter clockedFixedWindowRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new FixedWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

		@Bean
		TokenBucketRateLimiter clockedTokenBucketRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new TokenBucketRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

		@Bean
		GcraRateLimiter clockedGcraRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new GcraRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

	}

}

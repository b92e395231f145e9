package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two rules on one path, the second refusing: the request charges neither, in one round trip to Redis,
 * for every algorithm and for a rule with several limits.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=all-or-nothing", "ratelimit.local-cache.enabled=false",
				"ratelimit.rules.fixed-wide.paths=/open", "ratelimit.rules.fixed-wide.limit=5",
				"ratelimit.rules.fixed-wide.window=1m", "ratelimit.rules.fixed-narrow.paths=/open",
				"ratelimit.rules.fixed-narrow.limit=1", "ratelimit.rules.fixed-narrow.window=1m",
				"ratelimit.rules.log-wide.paths=/sliding", "ratelimit.rules.log-wide.limit=5",
				"ratelimit.rules.log-wide.window=1m", "ratelimit.rules.log-wide.algorithm=sliding-window-log",
				"ratelimit.rules.log-narrow.paths=/sliding", "ratelimit.rules.log-narrow.limit=1",
				"ratelimit.rules.log-narrow.window=1m", "ratelimit.rules.log-narrow.algorithm=sliding-window-log",
				"ratelimit.rules.counter-wide.paths=/search", "ratelimit.rules.counter-wide.limit=5",
				"ratelimit.rules.counter-wide.window=1m",
				"ratelimit.rules.counter-wide.algorithm=sliding-window-counter",
				"ratelimit.rules.counter-narrow.paths=/search", "ratelimit.rules.counter-narrow.limit=1",
				"ratelimit.rules.counter-narrow.window=1m",
				"ratelimit.rules.counter-narrow.algorithm=sliding-window-counter",
				"ratelimit.rules.bucket-wide.paths=/bucket", "ratelimit.rules.bucket-wide.limit=5",
				"ratelimit.rules.bucket-wide.window=1m", "ratelimit.rules.bucket-wide.algorithm=token-bucket",
				"ratelimit.rules.bucket-narrow.paths=/bucket", "ratelimit.rules.bucket-narrow.limit=1",
				"ratelimit.rules.bucket-narrow.window=1m", "ratelimit.rules.bucket-narrow.algorithm=token-bucket",
				"ratelimit.rules.gcra-wide.paths=/both", "ratelimit.rules.gcra-wide.limit=5",
				"ratelimit.rules.gcra-wide.window=1m", "ratelimit.rules.gcra-wide.algorithm=gcra",
				"ratelimit.rules.gcra-narrow.paths=/both", "ratelimit.rules.gcra-narrow.limit=1",
				"ratelimit.rules.gcra-narrow.window=1m", "ratelimit.rules.gcra-narrow.algorithm=gcra",
				"ratelimit.rules.multi-wide.paths=/costly", "ratelimit.rules.multi-wide.limits[0].limit=5",
				"ratelimit.rules.multi-wide.limits[0].window=10s", "ratelimit.rules.multi-wide.limits[1].limit=50",
				"ratelimit.rules.multi-wide.limits[1].window=1h", "ratelimit.rules.multi-narrow.paths=/costly",
				"ratelimit.rules.multi-narrow.limit=1", "ratelimit.rules.multi-narrow.window=1m",
				"ratelimit.rules.multi-narrow.algorithm=gcra" })
class RateLimitAllOrNothingIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private RateLimitRuleRegistry rules;

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "/open, fixed", "/sliding, log", "/search, counter", "/bucket, bucket", "/both, gcra",
			"/costly, multi" })
	void chargesNoRuleWhenTheSecondRefuses(String path, String name) throws Exception {
		get(this.port, path);
		long before = RedisTestServer.shared().scriptCalls();
		HttpResponse<String> refused = get(this.port, path);
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.contains("\"" + name + "-narrow\";r=0;");
		// one round trip for both rules
		assertThat(RedisTestServer.shared().scriptCalls() - before).isEqualTo(1);
		// the wide rule kept what the refused request would have taken: one permit spent, by the first request
		RateLimitRule wide = this.rules.find(name + "-wide");
		List<RateLimitDecision> state = this.rules.limiter(wide).inspect(wide.name() + ":ip:127.0.0.1", wide.limits());
		assertThat(state.get(0).remaining()).isEqualTo(wide.limits().get(0).limit() - 1);
	}

	@Test
	void chargesBothRulesWhenBothAllowInOneRoundTrip() throws Exception {
		long before = RedisTestServer.shared().scriptCalls();
		HttpResponse<String> allowed = get(this.port, "/open");
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.matches("\"fixed-wide\";r=4;t=(59|60), \"fixed-narrow\";r=0;t=(59|60)");
		assertThat(RedisTestServer.shared().scriptCalls() - before).isEqualTo(1);
	}

}

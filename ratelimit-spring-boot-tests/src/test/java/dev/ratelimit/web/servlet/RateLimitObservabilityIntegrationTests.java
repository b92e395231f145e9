package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.CurlRequest;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.RateLimitFields;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static dev.ratelimit.web.servlet.RateLimitTestApplication.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Metrics after real requests, the actuator endpoint over HTTP, shadow mode and the logs.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=ratelimit,metrics",
				"ratelimit.trusted-proxies=127.0.0.1", "ratelimit.rules.keyed.paths=/keyed",
				"ratelimit.rules.keyed.limit=2", "ratelimit.rules.keyed.window=1m",
				"ratelimit.rules.keyed.key=header:X-Api-Key",
				"logging.level.dev.ratelimit.rules=DEBUG", "ratelimit.rules.api.paths=/api/**",
				"ratelimit.rules.api.methods=GET", "ratelimit.rules.api.limit=3", "ratelimit.rules.api.window=1m",
				"ratelimit.rules.shadowed.paths=/shadowed", "ratelimit.rules.shadowed.limit=1",
				"ratelimit.rules.shadowed.window=1m", "ratelimit.rules.shadowed.shadow=true",
				"ratelimit.rules.near.paths=/search", "ratelimit.rules.near.limit=10", "ratelimit.rules.near.window=1m" })
@ExtendWith(OutputCaptureExtension.class)
class RateLimitObservabilityIntegrationTests extends RedisBackedWebTests {

	@Autowired
	private MeterRegistry meters;

	@Test
	void countsDecisionsByRuleAndOutcome() throws Exception {
		double allowedBefore = count("api", "allowed");
		double rejectedBefore = count("api", "rejected");
		double fromMemoryBefore = this.meters.get("ratelimit.local.cache.rejections").functionCounter().count();
		for (int i = 0; i < 5; i++) {
			get(this.port, "/api/items");
		}
		assertThat(count("api", "allowed") - allowedBefore).isEqualTo(3);
		assertThat(count("api", "rejected") - rejectedBefore).isEqualTo(2);
		assertThat(this.meters.get("ratelimit.decision.duration").tag("rule", "api").timer().count()).isPositive();
		// the second refusal came from memory, without Redis
		assertThat(this.meters.get("ratelimit.local.cache.rejections").functionCounter().count() - fromMemoryBefore)
			.isEqualTo(1);
		assertThat(this.meters.get("ratelimit.redis.available").gauge().value()).isEqualTo(1);
		// tags name rules and outcomes only, never client keys
		assertThat(this.meters.find("ratelimit.decisions").counters()).allSatisfy((counter) -> assertThat(
				counter.getId().getTags()).extracting((tag) -> tag.getKey()).containsExactlyInAnyOrder("rule", "outcome"));
	}

	@Test
	void countsTheDecisionsThatComeNearTheLimitAndStillCountsThemAllowed() throws Exception {
		// the engine tells the observer, whichever entry point asked: one stack shows it for all
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			statuses.add(get(this.port, "/search").statusCode());
		}
		assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429);
		assertThat(count("near", "allowed")).isEqualTo(10);
		assertThat(count("near", "rejected")).isEqualTo(2);
		// ratio 0.8 by default: the 8th, 9th and 10th requests left 2, 1 and 0 of 10; refusals are not near, but over
		assertThat(this.meters.get("ratelimit.decisions.near-limit").tag("rule", "near").counter().count())
			.isEqualTo(3);
		assertThat(this.meters.find("ratelimit.decisions.near-limit").counters()).allSatisfy((counter) -> assertThat(
				counter.getId().getTags()).extracting((tag) -> tag.getKey()).containsExactly("rule"));
		// as docs/observability.md shows it
		String target = "/actuator/metrics/ratelimit.decisions.near-limit?tag=rule:near";
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "observability.md"),
				"RateLimitObservabilityIntegrationTests", null), "$ curl -s 'localhost:8080" + target + "'\n"
						+ CurlRequest.get(this.port, target).send().body() + "\n");
	}

	@Test
	void describesTheRulesInForce() throws Exception {
		HttpResponse<String> response = get(this.port, "/actuator/ratelimit");
		assertThat(response.statusCode()).isEqualTo(200);
		String body = response.body();
		assertThat((String) JsonPath.read(body, "$.failureMode")).isEqualTo("fail-open");
		assertThat((String) JsonPath.read(body, "$.redis")).isEqualTo("up");
		assertThat((String) JsonPath.read(body, "$.circuitBreaker")).isEqualTo("closed");
		List<Map<String, Object>> api = JsonPath.read(body, "$.rules[?(@.name == 'api')]");
		assertThat(api).singleElement().satisfies((rule) -> {
			assertThat(rule).containsEntry("algorithm", "fixed-window").containsEntry("key", "ip")
				.containsEntry("shadow", false)
				.containsEntry("paths", List.of("/api/**"))
				.containsEntry("methods", List.of("GET"));
			assertThat(rule.get("limits")).isEqualTo(
					List.of(Map.of("policy", "api", "limit", 3, "window", "1m", "burst", 3)));
		});
		// annotated handlers' rules are there too
		assertThat((List<String>) JsonPath.read(body, "$.rules[*].name")).contains("Endpoints.annotated", "shared");
	}

	@Test
	void readsAKeyWithoutChargingItAndResetsIt() throws Exception {
		get(this.port, "/api/items");
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> state = get(this.port, "/actuator/ratelimit/api/127.0.0.1");
			assertThat(state.statusCode()).isEqualTo(200);
			assertThat((Integer) JsonPath.read(state.body(), "$.limits[0].remaining")).isEqualTo(2);
			assertThat((Boolean) JsonPath.read(state.body(), "$.limits[0].allowed")).isTrue();
		}
		get(this.port, "/api/items");
		get(this.port, "/api/items");
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(429);
		HttpResponse<String> blocked = get(this.port, "/actuator/ratelimit/api/127.0.0.1");
		assertThat((Integer) JsonPath.read(blocked.body(), "$.limits[0].remaining")).isZero();
		assertThat((Integer) JsonPath.read(blocked.body(), "$.limits[0].retryAfterSeconds")).isBetween(1, 60);

		HttpResponse<String> reset = send(this.port, "DELETE", "/actuator/ratelimit/api/127.0.0.1");
		assertThat(reset.statusCode()).isEqualTo(200);
		assertThat((Integer) JsonPath.read(reset.body(), "$.deletedEntries")).isEqualTo(1);
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/actuator/ratelimit/nosuchrule/127.0.0.1").statusCode()).isEqualTo(404);
	}

	@Test
	void findsIpv6AddressesAndKeysWithSlashes() throws Exception {
		for (int i = 0; i < 4; i++) {
			get(this.port, "/api/items", "X-Forwarded-For", "2001:db8::1");
		}
		HttpResponse<String> ipv6 = get(this.port, "/actuator/ratelimit/api/2001:db8::1");
		assertThat((Integer) JsonPath.read(ipv6.body(), "$.limits[0].remaining")).isZero();
		assertThat((Integer) JsonPath.read(send(this.port, "DELETE", "/actuator/ratelimit/api/2001:db8::1").body(),
				"$.deletedEntries")).isEqualTo(1);
		assertThat(get(this.port, "/api/items", "X-Forwarded-For", "2001:db8::1").statusCode()).isEqualTo(200);

		get(this.port, "/keyed", "X-Api-Key", "team/alpha");
		HttpResponse<String> slashed = get(this.port, "/actuator/ratelimit/keyed/team/alpha");
		assertThat(slashed.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(slashed.body(), "$.key")).isEqualTo("team/alpha");
		assertThat((Integer) JsonPath.read(slashed.body(), "$.limits[0].remaining")).isEqualTo(1);
	}

	@Test
	void reachesTheClientAddressBudgetOfAKeyedRuleAndKeysWithSemicolonsAndEmptySegments() throws Exception {
		// no API key: charged under the client address, which the endpoint reaches with clientAddress=true
		get(this.port, "/keyed");
		get(this.port, "/keyed");
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(429);
		HttpResponse<String> fallback = get(this.port, "/actuator/ratelimit/keyed/127.0.0.1?clientAddress=true");
		assertThat((Integer) JsonPath.read(fallback.body(), "$.limits[0].remaining")).isZero();
		assertThat(send(this.port, "DELETE", "/actuator/ratelimit/keyed/127.0.0.1?clientAddress=true").statusCode())
			.isEqualTo(200);
		this.denialCache.ifAvailable(dev.ratelimit.redis.LocalDenialCache::clear);
		assertThat(get(this.port, "/keyed").statusCode()).isEqualTo(200);
		// the same address as an API key is another budget, untouched
		assertThat((Integer) JsonPath.read(get(this.port, "/actuator/ratelimit/keyed/127.0.0.1").body(),
				"$.limits[0].remaining")).isEqualTo(2);
		// in the path a ';' travels encoded, or the path would read it as a matrix parameter; any key, empty
		// segments and all, as the key parameter
		for (String key : List.of("a;b=c", "team//alpha", "trailing/")) {
			get(this.port, "/keyed", "X-Api-Key", key);
			HttpResponse<String> state = get(this.port, (key.contains("//") || key.endsWith("/"))
					? "/actuator/ratelimit/keyed?key=" + java.net.URLEncoder.encode(key, java.nio.charset.StandardCharsets.UTF_8)
					: "/actuator/ratelimit/keyed/" + key.replace(";", "%3B"));
			assertThat(state.statusCode()).as(key).isEqualTo(200);
			assertThat((String) JsonPath.read(state.body(), "$.key")).as(key).isEqualTo(key);
			assertThat((Integer) JsonPath.read(state.body(), "$.limits[0].remaining")).as(key).isEqualTo(1);
		}
		HttpResponse<String> reset = send(this.port, "DELETE", "/actuator/ratelimit/keyed?key=team%2F%2Falpha");
		assertThat((Integer) JsonPath.read(reset.body(), "$.deletedEntries")).isEqualTo(1);
	}

	@Test
	void letsAShadowRuleObserveWithoutRefusing(CapturedOutput output) throws Exception {
		double before = count("shadowed", "shadow-rejected");
		assertThat(get(this.port, "/shadowed").statusCode()).isEqualTo(200);
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> passed = get(this.port, "/shadowed");
			assertThat(passed.statusCode()).isEqualTo(200);
			assertThat(passed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.startsWith("\"shadowed\";r=0;");
		}
		assertThat(count("shadowed", "shadow-rejected") - before).isEqualTo(3);
		assertThat(output.getOut()).contains("Shadow rule 'shadowed' would have refused a request for key #");
	}

	@Test
	void logsEachRuleAtStartupAndRejectionsAtDebugWithoutTheKey(CapturedOutput output) throws Exception {
		assertThat(output.getOut()).contains(
				"Rate limit 'api': 3 per 1m, fixed-window, on [/api/**] [GET], key ip, cost 1");
		for (int i = 0; i < 4; i++) {
			get(this.port, "/api/items");
		}
		String rejection = output.getOut()
			.lines()
			.filter((line) -> line.contains("Rejected GET /api/items by rule 'api'"))
			.findFirst()
			.orElseThrow();
		assertThat(rejection).contains("for key #").doesNotContain("127.0.0.1");
	}

	private double count(String rule, String outcome) {
		var counter = this.meters.find("ratelimit.decisions").tag("rule", rule).tag("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

}

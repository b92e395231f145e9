package dev.ratelimit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;

import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.SlidingWindowCounterRateLimiter;
import dev.ratelimit.redis.SlidingWindowRateLimiter;
import dev.ratelimit.redis.TokenBucketRateLimiter;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The curl scenarios of docs/sample-app.md against the sample application, with the test Redis and a clock the
 * test moves, so that the documentation cannot drift from the behaviour.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class SampleApplicationTests {

	private static final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private MutableClock clock;

	@Value("${ratelimit.key-prefix}")
	private String prefix;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		String prefix = "sample-" + UUID.randomUUID().toString().substring(0, 8);
		registry.add("ratelimit.key-prefix", () -> prefix);
	}

	@Autowired
	private LocalDenialCache denialCache;

	@BeforeEach
	void freshBudgets() {
		var keys = this.redis.keys(this.prefix + ":*");
		if (!keys.isEmpty()) {
			this.redis.delete(keys);
		}
		// rejections this instance remembers go with the budgets
		this.denialCache.clear();
	}

	@Test
	void greetingAllowsFivePerMinuteThenAnswers429() throws Exception {
		for (int remaining = 4; remaining >= 0; remaining--) {
			HttpResponse<String> response = get("/api/greeting");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("{\"message\":\"Hello from a rate-limited endpoint\"}");
			assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"greeting\";q=5;w=60");
			assertThat(response.headers().firstValue("RateLimit")).hasValue("\"greeting\";r=" + remaining + ";t=60");
		}
		this.clock.advance(Duration.ofSeconds(18));
		HttpResponse<String> rejected = get("/api/greeting");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Retry-After")).hasValue("42");
		assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"greeting\";r=0;t=42");
		assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		// every field and value, no more; the order of the fields is the application's JSON mapper's
		JSONAssert.assertEquals("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
				+ "\"detail\":\"Rate limit 'greeting' of 5 per minute exceeded; retry after 42 seconds.\","
				+ "\"instance\":\"/api/greeting\",\"violatedPolicies\":[\"greeting\"]}", rejected.body(),
				JSONCompareMode.STRICT);
		this.clock.advance(Duration.ofSeconds(42));
		assertThat(get("/api/greeting").statusCode()).isEqualTo(200);
	}

	@Test
	void eachApiKeyHasItsOwnBudget() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/api/partner/quote", "X-Api-Key", "key-a").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> rejected = get("/api/partner/quote", "X-Api-Key", "key-a");
		assertThat(rejected.statusCode()).isEqualTo(429);
		HttpResponse<String> other = get("/api/partner/quote", "X-Api-Key", "key-b");
		assertThat(other.statusCode()).isEqualTo(200);
		assertThat(other.headers().firstValue("RateLimit")).hasValue("\"partner\";r=2;t=60");
		assertThat(other.body()).isEqualTo("{\"quote\":\"Limits are budgets, not walls.\",\"apiKey\":\"key-b\"}");
	}

	@Test
	void callsOutToThePartnerTakeItsBudgetAndLearnFromItsRefusal() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/api/rates/EUR").body()).isEqualTo("{\"currency\":\"EUR\",\"rate\":\"1.0842\"}");
		}
		// the partner allows 3 calls, not the 5 it told us: its third answer said so (RateLimit: r=0;t=10), which
		// blocked the budget for 10 seconds on every instance. The fourth call never leaves; the caller gets our 429.
		HttpResponse<String> blocked = get("/api/rates/EUR");
		assertThat(blocked.statusCode()).isEqualTo(429);
		assertThat(blocked.headers().firstValue("RateLimit-Policy")).hasValue("\"rates\";q=5;w=10");
		assertThat(blocked.body()).contains("Rate limit 'rates' of 5 per 10 seconds exceeded");
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(get("/api/rates/EUR").statusCode()).isEqualTo(200);
	}

	@Test
	void annotatedReportsAllowTwoPerThirtySeconds() throws Exception {
		assertThat(get("/reports").headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=2;w=30");
		assertThat(get("/reports").statusCode()).isEqualTo(200);
		HttpResponse<String> rejected = get("/reports");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Retry-After")).hasValue("30");
	}

	@Test
	void aServiceLimitedByItsAnnotationIsRefusedAs429ThroughTheController() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(post("/api/sms/+34600000001?text=hi").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> refused = post("/api/sms/+34600000001?text=hi");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"sms\";q=3;w=3600");
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(refused.body()).contains("\"status\":429");
		assertThat(post("/api/sms/+34600000002?text=hi").statusCode()).isEqualTo(200);
		// a refused digest is answered by the service's fallback method
		assertThat(post("/api/sms/+34600000001/digest").body()).isEqualTo("{\"phone\":\"+34600000001\",\"digest\":\"sent\"}");
		assertThat(post("/api/sms/+34600000001/digest").body()).startsWith("{\"phone\":\"+34600000001\",\"digest\":\"queued, next in ");
	}

	@Test
	void loginAttemptsAreLimitedPerUserNameByTheInjectedLimiter() throws Exception {
		for (int remaining = 2; remaining >= 0; remaining--) {
			HttpResponse<String> attempt = post("/login?username=ann");
			assertThat(attempt.statusCode()).isEqualTo(200);
			assertThat(attempt.body()).isEqualTo("{\"username\":\"ann\",\"allowed\":true,\"limit\":3,\"remaining\":"
					+ remaining + ",\"retryAfterSeconds\":0,\"resetAfterSeconds\":300}");
		}
		HttpResponse<String> refused = post("/login?username=ann");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.body()).isEqualTo("{\"username\":\"ann\",\"allowed\":false,\"limit\":3,\"remaining\":0,"
				+ "\"retryAfterSeconds\":300,\"resetAfterSeconds\":300}");
		assertThat(post("/login?username=bob").statusCode()).isEqualTo(200);
	}

	@Test
	void fixedWindowLetsABurstThroughAtItsBoundaryAndSlidingWindowDoesNot() throws Exception {
		assertThat(boundaryBurst("/algorithms/fixed-window")).containsExactly(200, 200, 200, 200, 200, 200, 200, 200,
				200, 200);
		assertThat(boundaryBurst("/algorithms/sliding-window-log")).containsExactly(200, 200, 200, 200, 200, 200, 429,
				429, 429, 429);
	}

	@Test
	void searchChargesBothLimitsOrNeither() throws Exception {
		HttpResponse<String> first = get("/api/search");
		assertThat(first.headers().firstValue("RateLimit-Policy"))
			.hasValue("\"search-1s\";q=2;w=1, \"search-1m\";q=10;w=60");
		assertThat(first.headers().firstValue("RateLimit")).hasValue("\"search-1s\";r=1;t=1, \"search-1m\";r=9;t=60");
		get("/api/search");
		HttpResponse<String> third = get("/api/search");
		assertThat(third.statusCode()).isEqualTo(429);
		assertThat(third.headers().firstValue("RateLimit")).hasValue("\"search-1s\";r=0;t=1, \"search-1m\";r=8;t=60");
		assertThat(third.headers().firstValue("Retry-After")).hasValue("1");
	}

	@Test
	void everyAlgorithmGrantsFiveQuickRequestsThenRefuses() throws Exception {
		for (String algorithm : List.of("fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket",
				"gcra")) {
			List<Integer> statuses = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				statuses.add(get("/algorithms/" + algorithm).statusCode());
			}
			assertThat(statuses).as(algorithm).containsExactly(200, 200, 200, 200, 200, 429);
		}
	}

	@Test
	void tokenBucketAndGcraReturnOnePermitEveryTwoSeconds() throws Exception {
		for (String algorithm : List.of("token-bucket", "gcra")) {
			for (int i = 0; i < 5; i++) {
				get("/algorithms/" + algorithm);
			}
			HttpResponse<String> refused = get("/algorithms/" + algorithm);
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).as(algorithm).hasValue("2");
		}
		this.clock.advance(Duration.ofSeconds(2));
		for (String algorithm : List.of("token-bucket", "gcra")) {
			assertThat(get("/algorithms/" + algorithm).statusCode()).as(algorithm).isEqualTo(200);
			assertThat(get("/algorithms/" + algorithm).statusCode()).as(algorithm).isEqualTo(429);
		}
	}

	@Test
	void signInsChargeOnlyFailures() throws Exception {
		List<Integer> statuses = new ArrayList<>();
		statuses.add(send("POST", "/api/sign-in?username=ann&password=open-sesame").statusCode());
		statuses.add(send("POST", "/api/sign-in?username=ann&password=open-sesame").statusCode());
		for (int i = 0; i < 3; i++) {
			statuses.add(send("POST", "/api/sign-in?username=ann&password=guess").statusCode());
		}
		HttpResponse<String> refused = send("POST", "/api/sign-in?username=ann&password=open-sesame");
		statuses.add(refused.statusCode());
		assertThat(statuses).containsExactly(200, 200, 401, 401, 401, 429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("1800");
	}

	@Test
	void aBlockedUserNameStaysBlockedPastTheWindowUntilAnAdminLiftsIt() throws Exception {
		for (int i = 0; i < 4; i++) {
			send("POST", "/api/sign-in?username=eve&password=guess");
		}
		// the 15-minute window is over, the 30-minute block is not
		this.clock.advance(Duration.ofMinutes(20));
		HttpResponse<String> blocked = send("POST", "/api/sign-in?username=eve&password=open-sesame");
		assertThat(blocked.statusCode()).isEqualTo(429);
		assertThat(blocked.headers().firstValue("Retry-After")).hasValue("600");
		HttpResponse<String> state = get("/actuator/ratelimit/sign-in/eve", ADMIN);
		JSONAssert.assertEquals("{\"rule\":\"sign-in\",\"key\":\"eve\",\"blocked\":true,\"blockedForSeconds\":600}",
				state.body(), JSONCompareMode.LENIENT);
		HttpResponse<String> lifted = send("DELETE", "/actuator/ratelimit/sign-in/eve", ADMIN);
		JSONAssert.assertEquals("{\"reset\":true,\"unblocked\":true}", lifted.body(), JSONCompareMode.LENIENT);
		assertThat(send("POST", "/api/sign-in?username=eve&password=open-sesame").statusCode()).isEqualTo(200);
	}

	@Test
	void eachApiKeyGetsTheLimitsOfItsPlan() throws Exception {
		List<Integer> free = new ArrayList<>();
		List<Integer> pro = new ArrayList<>();
		List<Integer> internal = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			free.add(get("/api/plans/quote", "X-Api-Key", "key-a").statusCode());
			pro.add(get("/api/plans/quote", "X-Api-Key", "pro-a").statusCode());
			internal.add(get("/api/plans/quote", "X-Api-Key", "internal").statusCode());
		}
		assertThat(free).containsExactly(200, 200, 429, 429, 429, 429, 429);
		assertThat(pro).containsExactly(200, 200, 200, 200, 200, 200, 429);
		assertThat(internal).containsOnly(200);
		assertThat(get("/api/plans/quote", "X-Api-Key", "pro-b").headers().firstValue("RateLimit-Policy"))
			.hasValue("\"plans\";q=6;w=60");
	}

	@Test
	void outboundCallsWaitForTheirTurnAtMostASecond() throws Exception {
		assertThat(get("/outbound/1").statusCode()).isEqualTo(200);
		assertThat(get("/outbound/2").statusCode()).isEqualTo(200);
		// the test's clock stands still, so the third call's turn never comes: it waits out its second, then gives up
		HttpResponse<String> gaveUp = get("/outbound/3");
		assertThat(gaveUp.statusCode()).isEqualTo(503);
		assertThat(gaveUp.body()).contains("\"called\":false");
		assertThat(gaveUp.headers().firstValue("Retry-After")).hasValue("1");
		this.clock.advance(Duration.ofMillis(500));
		HttpResponse<String> called = get("/outbound/4");
		assertThat(called.statusCode()).isEqualTo(200);
		assertThat(called.body()).contains("\"called\":true");
	}

	@Test
	void shadowRuleObservesWithoutRefusing() throws Exception {
		for (int remaining = 1; remaining >= 0; remaining--) {
			assertThat(get("/api/beta").headers().firstValue("RateLimit"))
				.hasValue("\"beta\";r=" + remaining + ";t=60");
		}
		HttpResponse<String> wouldBeRefused = get("/api/beta");
		assertThat(wouldBeRefused.statusCode()).isEqualTo(200);
		assertThat(wouldBeRefused.headers().firstValue("RateLimit")).hasValue("\"beta\";r=0;t=60");
		HttpResponse<String> metric = get("/actuator/metrics/ratelimit.decisions?tag=rule:beta&tag=outcome:shadow-rejected",
				ADMIN);
		assertThat(metric.statusCode()).isEqualTo(200);
		assertThat((Double) JsonPath.read(metric.body(), "$.measurements[0].value")).isGreaterThanOrEqualTo(1.0);
	}

	@Test
	void actuatorEndpointListsRulesReadsAKeyAndResetsIt() throws Exception {
		HttpResponse<String> rules = get("/actuator/ratelimit", ADMIN);
		assertThat(rules.statusCode()).isEqualTo(200);
		assertThat((List<String>) JsonPath.read(rules.body(), "$.rules[*].name")).contains("greeting", "partner",
				"search", "beta", "reports");
		for (int i = 0; i < 6; i++) {
			get("/api/greeting");
		}
		HttpResponse<String> state = get("/actuator/ratelimit/greeting/127.0.0.1", ADMIN);
		assertThat(state.body()).isEqualTo("{\"rule\":\"greeting\",\"key\":\"127.0.0.1\",\"limits\":[{\"policy\":"
				+ "\"greeting\",\"limit\":5,\"remaining\":0,\"allowed\":false,\"retryAfterSeconds\":60,"
				+ "\"resetAfterSeconds\":60}]}");
		// an anonymous client can neither reset its own budget nor read anyone's
		assertThat(send("DELETE", "/actuator/ratelimit/greeting/127.0.0.1").statusCode()).isEqualTo(401);
		assertThat(get("/api/greeting").statusCode()).isEqualTo(429);
		HttpResponse<String> reset = send("DELETE", "/actuator/ratelimit/greeting/127.0.0.1", ADMIN);
		assertThat(reset.body())
			.isEqualTo("{\"rule\":\"greeting\",\"key\":\"127.0.0.1\",\"reset\":true,\"deletedEntries\":1}");
		assertThat(get("/api/greeting").statusCode()).isEqualTo(200);
	}

	@Test
	void securesEveryOperationOfTheEndpointReadsIncluded() throws Exception {
		// reading another user's key tells how their sign-ins went; the rules list tells what to get around
		for (String path : new String[] { "/actuator/ratelimit", "/actuator/ratelimit/sign-in/eve",
				"/actuator/ratelimit/sign-in?key=eve", "/actuator/metrics", "/actuator/metrics/ratelimit.decisions" }) {
			assertThat(get(path).statusCode()).as(path).isEqualTo(401);
		}
		assertThat(send("POST", "/actuator/ratelimit/reload").statusCode()).isEqualTo(401);
		assertThat(send("POST", "/actuator/ratelimit/sign-in/eve").statusCode()).isEqualTo(401);
		assertThat(get("/actuator/health").statusCode()).isEqualTo(200);
	}

	/**
	 * One request, nine seconds later four more, one second later five more: ten requests, nine of
	 * them within one second.
	 */
	private List<Integer> boundaryBurst(String path) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		statuses.add(get(path).statusCode());
		this.clock.advance(Duration.ofSeconds(5));
		for (int i = 0; i < 4; i++) {
			statuses.add(get(path).statusCode());
		}
		this.clock.advance(Duration.ofSeconds(5));
		for (int i = 0; i < 5; i++) {
			statuses.add(get(path).statusCode());
		}
		return statuses;
	}

	/** The admin user of the sample's properties, over HTTP Basic. */
	private static final String[] ADMIN = { "Authorization",
			"Basic " + java.util.Base64.getEncoder().encodeToString("admin:change-me".getBytes()) };

	@Test
	void chatsAreChargedTheTokensTheirAnswersTellAndAnsweredSmallerPastTheSoftLimit() throws Exception {
		HttpResponse<String> first = send("POST", "/api/chat?prompt=one+two+three", "X-User", "ann");
		assertThat(first.statusCode()).isEqualTo(200);
		// 500 tokens reserved of 20000; the handler reads the same figure
		assertThat(first.headers().firstValue("RateLimit").orElseThrow()).contains("\"chat-tokens\";r=19500;");
		assertThat(first.body()).contains("\"model\":\"large\"", "\"tokens\":120", "\"tokensLeftToday\":19500");
		assertThat(first.headers().firstValue("X-Tokens-Used")).isEmpty();
		// settled with the 120 the answer cost: the next chat finds 20000 - 120, and reserves its 500
		await().atMost(Duration.ofSeconds(10)).until(() -> send("POST", "/api/chat?prompt=hi", "X-User", "ann").body()
			.contains("\"tokensLeftToday\":19380"));
		for (int i = 0; i < 3; i++) {
			assertThat(send("POST", "/api/chat?prompt=hi", "X-User", "ann").body()).contains("\"model\":\"large\"");
		}
		// past 5 chats a minute: answered by the small model, never refused
		HttpResponse<String> sixth = send("POST", "/api/chat?prompt=one+two", "X-User", "ann");
		assertThat(sixth.statusCode()).isEqualTo(200);
		assertThat(sixth.body()).contains("\"model\":\"small\"", "\"tokens\":40");
		assertThat(sixth.headers().firstValue("Retry-After")).isEmpty();
	}

	@Test
	void runsAtMostTwoExportsPerUserAtOnce() throws Exception {
		List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> running = new java.util.ArrayList<>();
		for (int i = 0; i < 2; i++) {
			running.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port
					+ "/api/exports/sales?millis=3000"))
				.header("X-User", "bo")
				.POST(HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString()));
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> send("POST", "/api/exports/sales?millis=0", "X-User", "bo").statusCode() == 429);
		HttpResponse<String> refused = send("POST", "/api/exports/sales?millis=0", "X-User", "bo");
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(refused.body()).contains("Too many requests in flight: 'exports' allows 2 at a time");
		// another user has slots of their own
		assertThat(send("POST", "/api/exports/sales?millis=0", "X-User", "cy").statusCode()).isEqualTo(200);
		for (var export : running) {
			HttpResponse<String> done = export.get(20, java.util.concurrent.TimeUnit.SECONDS);
			assertThat(done.statusCode()).isEqualTo(200);
			// as docs/sample-app.md shows it, members in this order
			assertThat(done.body()).isEqualTo("{\"report\":\"sales\",\"status\":\"exported\"}");
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> send("POST", "/api/exports/sales?millis=0", "X-User", "bo").statusCode() == 200);
	}

	private HttpResponse<String> get(String path, String... headers) throws Exception {
		return send("GET", path, headers);
	}

	private HttpResponse<String> post(String path) throws Exception {
		return send("POST", path);
	}

	private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody());
		if (headers.length > 0) {
			request.headers(headers);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class TestClock {

		@Bean
		MutableClock testClock() {
			// the start of a 10-second window, so that the sliding window counter's windows line up the same
			// way on every run
			return new MutableClock(Instant.ofEpochSecond(Instant.now().getEpochSecond() / 10 * 10));
		}

		@Bean
		FixedWindowRateLimiter testFixedWindowRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new FixedWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

		@Bean
		SlidingWindowRateLimiter testSlidingWindowRateLimiter(StringRedisTemplate redis,
				RateLimitProperties properties, MutableClock clock) {
			return new SlidingWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

		@Bean
		SlidingWindowCounterRateLimiter testSlidingWindowCounterRateLimiter(StringRedisTemplate redis,
				RateLimitProperties properties, MutableClock clock) {
			return new SlidingWindowCounterRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

		@Bean
		TokenBucketRateLimiter testTokenBucketRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new TokenBucketRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

		@Bean
		GcraRateLimiter testGcraRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new GcraRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

	}

}

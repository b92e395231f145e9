package dev.ratelimit.sample;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
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
import dev.ratelimit.testsupport.ChatModelServer;
import dev.ratelimit.testsupport.CurlRequest;
import dev.ratelimit.testsupport.DocumentationTranscripts;
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

	/** The chat model of AiChatController: OpenAI's API on 127.0.0.1. */
	private static final ChatModelServer model = startModel();

	private static ChatModelServer startModel() {
		try {
			return new ChatModelServer();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	@AfterAll
	static void stopModel() {
		model.close();
	}

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.ai.openai.base-url", model::baseUrl);
		registry.add("spring.ai.openai.max-retries", () -> "0");
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		String prefix = "sample-" + UUID.randomUUID().toString().substring(0, 8);
		registry.add("ratelimit.key-prefix", () -> prefix);
		// the transcripts show every header: a slow moment on a loaded machine must not turn a decision into fail-open
		registry.add("ratelimit.timeout", () -> "5s");
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
		String command = "$ curl -si localhost:8080/api/greeting    # the usual response headers left out\n";
		assertShows("greeting", command + shown(curl("GET", "/api/greeting")));
		for (int remaining = 3; remaining >= 0; remaining--) {
			assertThat(RateLimitFields.withoutPartitionKeys(curl("GET", "/api/greeting").header("RateLimit")))
				.isEqualTo("\"greeting\";r=" + remaining + ";t=60");
		}
		this.clock.advance(Duration.ofSeconds(18));
		assertShows("greeting-refused", command + shown(curl("GET", "/api/greeting")));
		this.clock.advance(Duration.ofSeconds(42));
		assertThat(get("/api/greeting").statusCode()).isEqualTo(200);
	}

	@Test
	void eachApiKeyHasItsOwnBudget() throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			statuses.add(curl("GET", "/api/partner/quote", "X-Api-Key", "key-a").status());
		}
		assertShows("partner", "$ for i in 1 2 3 4; do curl -s -o /dev/null -w \"%{http_code} \" -H \"X-Api-Key: key-a\" "
				+ "localhost:8080/api/partner/quote; done\n" + codes(statuses)
				+ "$ curl -si -H \"X-Api-Key: key-b\" localhost:8080/api/partner/quote    # the usual response headers left out\n"
				+ shown(curl("GET", "/api/partner/quote", "X-Api-Key", "key-b")));
	}

	@Test
	void callsOutToThePartnerTakeItsBudgetAndLearnFromItsRefusal() throws Exception {
		// the partner allows 3 calls, not the 5 it told us: its third answer said so (RateLimit: r=0;t=10), which
		// blocked the budget for 10 seconds on every instance. The fourth call never leaves; the caller gets our 429.
		StringBuilder transcript = new StringBuilder();
		for (int i = 0; i < 3; i++) {
			transcript.append("$ curl -s localhost:8080/api/rates/EUR\n").append(curl("GET", "/api/rates/EUR").body())
				.append('\n');
		}
		transcript.append("$ curl -si localhost:8080/api/rates/EUR    # the usual response headers left out\n")
			.append(shown(curl("GET", "/api/rates/EUR")))
			.append("$ curl -si localhost:8080/partner/rates/EUR    # the partner itself, the same headers\n")
			.append(shown(curl("GET", "/partner/rates/EUR")));
		DocumentationTranscripts.assertShows(
				DocumentationTranscripts.text(Path.of("..", "docs", "clients.md"), "SampleApplicationTests", null),
				transcript.toString());
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(get("/api/rates/EUR").statusCode()).isEqualTo(200);
		// blocked by hand, say while the partner is down: no call leaves for 5 minutes
		String block = "localhost:8080/actuator/ratelimit/rates/rates";
		DocumentationTranscripts.assertShows(
				DocumentationTranscripts.text(Path.of("..", "docs", "clients.md"), "SampleApplicationTests", "block"),
				"$ curl -s -u admin:change-me -X POST -H 'Content-Type: application/json' -d '{\"duration\": \"5m\"}' "
						+ block + "\n" + CurlRequest.of(this.port, "POST", "/actuator/ratelimit/rates/rates")
							.user("admin", "change-me")
							.header("Content-Type", "application/json")
							.body("{\"duration\": \"5m\"}")
							.send()
							.body() + "\n");
		this.clock.advance(Duration.ofMinutes(4));
		assertThat(get("/api/rates/EUR").statusCode()).isEqualTo(429);
	}

	@Test
	void callsOutToThePartnerAsTheSamplePageShows() {
		StringBuilder transcript = new StringBuilder("$ for i in 1 2 3; do curl -s localhost:8080/api/rates/EUR; echo; done\n");
		for (int i = 0; i < 3; i++) {
			transcript.append(curl("GET", "/api/rates/EUR").body()).append('\n');
		}
		transcript.append("$ curl -s localhost:8080/api/rates/EUR\n").append(curl("GET", "/api/rates/EUR").body()).append('\n');
		assertShows("rates", transcript.toString());
	}

	@Test
	void annotatedReportsAllowTwoPerThirtySeconds() throws Exception {
		assertThat(get("/reports").headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"reports\";q=2;w=30");
		freshBudgets();
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			statuses.add(curl("GET", "/reports").status());
		}
		assertShows("reports", "$ for i in 1 2 3; do curl -s -o /dev/null -w \"%{http_code} \" localhost:8080/reports; done\n"
				+ codes(statuses));
		assertThat(curl("GET", "/reports").header("Retry-After")).isEqualTo("30");
	}

	@Test
	void aServiceLimitedByItsAnnotationIsRefusedAs429ThroughTheController() throws Exception {
		String send = "$ curl -si -X POST 'localhost:8080/api/sms/+34600000001?text=hello'\n";
		String transcript = send + shown(curl("POST", "/api/sms/+34600000001?text=hello"));
		for (int i = 0; i < 2; i++) {
			assertThat(curl("POST", "/api/sms/+34600000001?text=hello").status()).isEqualTo(200);
		}
		transcript += "(twice more the same, then)\n" + send + shown(curl("POST", "/api/sms/+34600000001?text=hello"));
		// a refused digest is answered by the service's fallback method
		for (int i = 0; i < 2; i++) {
			transcript += "$ curl -s -X POST 'localhost:8080/api/sms/+34600000001/digest'\n"
					+ curl("POST", "/api/sms/+34600000001/digest").body() + "\n";
		}
		assertShows("sms", transcript);
		assertThat(post("/api/sms/+34600000002?text=hi").statusCode()).isEqualTo(200);
	}

	@Test
	void loginAttemptsAreLimitedPerUserNameByTheInjectedLimiter() throws Exception {
		StringBuilder transcript = new StringBuilder(
				"$ for i in 1 2 3 4; do curl -s -X POST \"localhost:8080/login?username=ann\"; echo; done\n");
		for (int i = 0; i < 4; i++) {
			transcript.append(curl("POST", "/login?username=ann").body()).append('\n');
		}
		assertShows("login", transcript.toString());
		assertThat(post("/login?username=bob").statusCode()).isEqualTo(200);
	}

	@Test
	void fixedWindowLetsABurstThroughAtItsBoundaryAndSlidingWindowDoesNot() throws Exception {
		assertShows("algorithms", "$ a=fixed-window; c() { for i in $(seq $1); do curl -s -o /dev/null -w \"%{http_code} \" "
				+ "localhost:8080/algorithms/$a; done; }; c 1; sleep 5; c 4; sleep 5; c 5; echo\n"
				+ codes(boundaryBurst("/algorithms/fixed-window"))
				+ "$ a=sliding-window-log; c 1; sleep 5; c 4; sleep 5; c 5; echo\n"
				+ codes(boundaryBurst("/algorithms/sliding-window-log")));
	}

	@Test
	void searchChargesBothLimitsOrNeither() throws Exception {
		StringBuilder transcript = new StringBuilder("$ for i in 1 2 3; do curl -s -o /dev/null -D - localhost:8080/api/search "
				+ "| grep -E \"^(HTTP|RateLimit:)\"; done\n");
		for (int i = 0; i < 3; i++) {
			transcript.append(curl("GET", "/api/search").statusAndHeaders("RateLimit"));
		}
		assertShows("search", transcript.toString());
		assertThat(curl("GET", "/api/search").header("Retry-After")).isEqualTo("1");
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
		for (String password : List.of("open-sesame", "open-sesame", "guess", "guess", "guess", "open-sesame")) {
			statuses.add(curl("POST", "/api/sign-in?username=ann&password=" + password).status());
		}
		String key = "localhost:8080/actuator/ratelimit/sign-in/ann";
		String transcript = "$ for p in open-sesame open-sesame guess guess guess open-sesame; do curl -s -o /dev/null "
				+ "-w \"%{http_code} \" -X POST \"localhost:8080/api/sign-in?username=ann&password=$p\"; done; echo\n"
				+ codes(statuses)
				+ "$ curl -si -X POST \"localhost:8080/api/sign-in?username=ann&password=open-sesame\" | grep Retry-After\n"
				+ "Retry-After: " + curl("POST", "/api/sign-in?username=ann&password=open-sesame").header("Retry-After") + "\n"
				+ "$ curl -s -u admin:change-me " + key + "\n"
				+ curl("GET", "/actuator/ratelimit/sign-in/ann", ADMIN).body() + "\n"
				+ "$ curl -s -u admin:change-me -X DELETE " + key + "\n"
				+ curl("DELETE", "/actuator/ratelimit/sign-in/ann", ADMIN).body() + "\n"
				+ "$ curl -s -o /dev/null -w \"%{http_code}\\n\" -X POST "
				+ "\"localhost:8080/api/sign-in?username=ann&password=open-sesame\"\n"
				+ curl("POST", "/api/sign-in?username=ann&password=open-sesame").status() + "\n";
		assertShows("sign-in", transcript);
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
		StringBuilder transcript = new StringBuilder("$ for key in key-a pro-a internal; do for i in 1 2 3 4 5 6 7; do curl -s "
				+ "-o /dev/null -w \"%{http_code} \" -H \"X-Api-Key: $key\" localhost:8080/api/plans/quote; done; echo; done\n");
		for (String key : List.of("key-a", "pro-a", "internal")) {
			List<Integer> statuses = new ArrayList<>();
			for (int i = 0; i < 7; i++) {
				statuses.add(curl("GET", "/api/plans/quote", "X-Api-Key", key).status());
			}
			transcript.append(codes(statuses));
		}
		transcript.append("$ curl -si -H \"X-Api-Key: pro-b\" localhost:8080/api/plans/quote | grep RateLimit\n");
		CurlRequest.Response proB = curl("GET", "/api/plans/quote", "X-Api-Key", "pro-b");
		transcript.append(proB.statusAndHeaders("RateLimit-Policy", "RateLimit").substring(proB.statusLine().length() + 1));
		assertShows("plans", transcript.toString());
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
		StringBuilder transcript = new StringBuilder("$ for i in 1 2 3; do curl -s -o /dev/null -D - localhost:8080/api/beta "
				+ "| grep -E \"^(HTTP|RateLimit:)\"; done\n");
		for (int i = 0; i < 3; i++) {
			transcript.append(curl("GET", "/api/beta").statusAndHeaders("RateLimit"));
		}
		assertShows("beta", transcript.toString());
		HttpResponse<String> metric = get("/actuator/metrics/ratelimit.decisions?tag=rule:beta&tag=outcome:shadow-rejected",
				ADMIN);
		assertThat(metric.statusCode()).isEqualTo(200);
		assertThat((Double) JsonPath.read(metric.body(), "$.measurements[0].value")).isGreaterThanOrEqualTo(1.0);
	}

	@Test
	void actuatorEndpointListsRulesReadsAKeyAndResetsIt() throws Exception {
		for (int i = 0; i < 6; i++) {
			get("/api/greeting");
		}
		String key = "localhost:8080/actuator/ratelimit/greeting/127.0.0.1";
		String transcript = "$ curl -s -o /dev/null -w \"%{http_code}\\n\" " + key + "\n"
				+ curl("GET", "/actuator/ratelimit/greeting/127.0.0.1").status() + "\n"
				+ "$ curl -s -u admin:change-me localhost:8080/actuator/ratelimit\n"
				+ curl("GET", "/actuator/ratelimit", ADMIN).body() + "\n"
				+ "$ curl -s -u admin:change-me " + key + "\n"
				+ curl("GET", "/actuator/ratelimit/greeting/127.0.0.1", ADMIN).body() + "\n"
				+ "$ curl -s -o /dev/null -w \"%{http_code}\\n\" -X DELETE " + key + "\n"
				+ curl("DELETE", "/actuator/ratelimit/greeting/127.0.0.1").status() + "\n";
		// an anonymous client can neither reset its own budget nor read anyone's
		assertThat(get("/api/greeting").statusCode()).isEqualTo(429);
		transcript += "$ curl -s -u admin:change-me -X DELETE " + key + "\n"
				+ curl("DELETE", "/actuator/ratelimit/greeting/127.0.0.1", ADMIN).body() + "\n";
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "operations.md"),
				"SampleApplicationTests", null), transcript);
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
		String first = "what+is+a+token+bucket";
		StringBuilder transcript = new StringBuilder("$ curl -si -X POST 'localhost:8080/api/chat?prompt=" + first
				+ "' -H 'X-User: ann'\n");
		CurlRequest.Response answer = chat(first);
		// the client never sees what the answer cost
		assertThat(answer.header("X-Tokens-Used")).isNull();
		transcript.append(shown(answer))
			.append("$ curl -s -X POST 'localhost:8080/api/chat?prompt=and+GCRA' -H 'X-User: ann'\n")
			.append(chat("and+GCRA").body())
			.append("\n(four more, then)\n");
		for (int i = 0; i < 4; i++) {
			chat("and+GCRA");
		}
		transcript.append("$ curl -si -X POST 'localhost:8080/api/chat?prompt=one+more+question' -H 'X-User: ann'\n")
			.append(shown(chat("one+more+question")));
		assertShows("chat", transcript.toString());
	}

	@Test
	void aChatModelsAnswersAreChargedToTheUsersDailyTokensThenRefused() {
		// 1600 tokens an answer: the first leaves 400 of bob's 2000 a day, less than the next call reserves (its
		// prompt's estimate and the 500 tokens an answer may have)
		model.usage(400, 1200);
		int before = model.calls();
		String ask = "$ curl -s 'localhost:8080/chat?q=Who+keeps+the+counts%3F' -H 'X-User: bob'\n";
		CurlRequest.Response answered = curl("GET", "/chat?q=Who+keeps+the+counts%3F", "X-User", "bob");
		assertThat(answered.status()).isEqualTo(200);
		assertThat(answered.body()).isEqualTo(ChatModelServer.ANSWER);
		CurlRequest.Response refused = curl("GET", "/chat?q=And+the+windows%3F", "X-User", "bob");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(model.calls()).as("the refused call never reached the model").isEqualTo(before + 1);
		RateLimitFields.Member policy = RateLimitFields.list(refused.header("RateLimit-Policy")).get(0);
		assertThat(policy.value()).isEqualTo("daily-tokens");
		assertThat(policy.params()).containsEntry("q", 2000L).containsEntry("qu", "tokens");
		assertThat(RateLimitFields.list(refused.header("RateLimit")).get(0).integer("r")).isEqualTo(400);
		DocumentationTranscripts.assertShows(
				DocumentationTranscripts.text(Path.of("..", "README.md"), "SampleApplicationTests", "ai-chat"),
				ask + answered.body() + "\n"
						+ "$ curl -si 'localhost:8080/chat?q=And+the+windows%3F' -H 'X-User: bob'\n" + shown(refused));
	}

	/**
	 * Sends a chat of {@code ann}, and waits for its reservation to be settled with the tokens the answer told, as a
	 * person typing the next prompt does.
	 */
	private CurlRequest.Response chat(String prompt) {
		CurlRequest.Response answer = curl("POST", "/api/chat?prompt=" + prompt, "X-User", "ann");
		assertThat(answer.status()).isEqualTo(200);
		int tokens = JsonPath.read(answer.body(), "$.tokens");
		int shown = JsonPath.read(answer.body(), "$.tokensLeftToday");
		int settled = shown + 500 - tokens;
		await().atMost(Duration.ofSeconds(10)).until(() -> JsonPath.<Integer>read(
				curl("GET", "/actuator/ratelimit/chat-tokens/ann", ADMIN).body(), "$.limits[0].remaining") == settled);
		return answer;
	}

	/**
	 * Returns how many slots of work in flight the rule's keys hold, read off their sorted sets in Redis.
	 */
	private long slotsHeld(String rule) {
		long held = 0;
		for (String key : this.redis.keys(this.prefix + ":*" + rule + "*")) {
			if (this.redis.type(key) == org.springframework.data.redis.connection.DataType.ZSET) {
				Long count = this.redis.opsForZSet().zCard(key);
				held += (count != null) ? count : 0;
			}
		}
		return held;
	}

	@Test
	void runsAtMostTwoExportsPerUserAtOnce() throws Exception {
		String export = "$ curl -s -X POST 'localhost:8080/api/exports/sales?millis=3000' -H 'X-User: bo' &\n";
		List<java.util.concurrent.CompletableFuture<CurlRequest.Response>> running = new ArrayList<>();
		// a thread of its own for each export, as the shell's '&' gives: the common pool may have a single thread
		// on a 2-CPU machine (JDK 25's CompletableFuture uses it where JDK 17 started a thread per task)
		java.util.concurrent.ExecutorService exports = java.util.concurrent.Executors.newFixedThreadPool(2);
		for (int i = 0; i < 2; i++) {
			running.add(java.util.concurrent.CompletableFuture
				.supplyAsync(() -> curl("POST", "/api/exports/sales?millis=3000", "X-User", "bo"), exports));
		}
		exports.shutdown();
		// what "sleep 1" waits for: both exports hold their slots, read off Redis (a request would take a slot itself,
		// and could take one of the two before an export arrives on a busy machine)
		await().atMost(Duration.ofSeconds(30)).until(() -> slotsHeld("exports") == 2);
		StringBuilder transcript = new StringBuilder(export + export + "$ sleep 1   # both exports are running now\n")
			.append("$ curl -si -X POST 'localhost:8080/api/exports/sales' -H 'X-User: bo'\n")
			.append(shown(curl("POST", "/api/exports/sales", "X-User", "bo")));
		// another user has slots of their own
		assertThat(curl("POST", "/api/exports/sales?millis=0", "X-User", "cy").status()).isEqualTo(200);
		for (var done : running) {
			transcript.append(done.get(20, java.util.concurrent.TimeUnit.SECONDS).body()).append('\n');
		}
		String last = "/api/exports/sales?millis=0";
		// a slot is given back once its response is complete, a moment after the client has read it
		await().atMost(Duration.ofSeconds(10)).until(() -> curl("POST", last, "X-User", "bo").status() == 200);
		transcript.append("$ curl -s -o /dev/null -w '%{http_code}\\n' -X POST 'localhost:8080/api/exports/sales?millis=0' "
				+ "-H 'X-User: bo'\n").append(curl("POST", last, "X-User", "bo").status()).append('\n');
		assertShows("exports", transcript.toString());
	}

	private static void assertShows(String label, String transcript) {
		DocumentationTranscripts.assertShows(
				DocumentationTranscripts.text(Path.of("..", "docs", "sample-app.md"), "SampleApplicationTests", label),
				transcript);
	}

	/** Status codes as {@code curl -w "%{http_code} "} prints them in a loop, and the line break that follows. */
	private static String codes(List<Integer> statuses) {
		return String.join(" ", statuses.stream().map(String::valueOf).toList()) + "\n";
	}

	/** Sends a request as curl does, with header name and value pairs, and returns the response as it came. */
	private CurlRequest.Response curl(String method, String path, String... headers) {
		CurlRequest request = CurlRequest.of(this.port, method, path);
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return request.send();
	}

	/**
	 * A response as {@code curl -si} prints it, but for the usual response headers (security, length, date): the
	 * status line, the rate-limit headers and the content type, a blank line and the body.
	 */
	private static String shown(CurlRequest.Response response) {
		return response.statusAndHeaders("RateLimit-Policy", "RateLimit", "Retry-After", "Content-Type") + "\n"
				+ response.body() + "\n";
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

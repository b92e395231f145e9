package dev.ratelimit.sample.webflux;

import dev.ratelimit.testsupport.RateLimitFields;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.LocalDenialCache;
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

/**
 * The WebFlux sample as its documentation's curl commands use it, on Netty and a real Redis.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "server.address=127.0.0.1")
class SampleWebFluxApplicationTests {

	private static final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private LocalDenialCache denialCache;

	@Value("${ratelimit.key-prefix}")
	private String prefix;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		// one prefix, read by the application and by the test (a supplier is asked again at each read)
		String prefix = "sample-webflux-" + UUID.randomUUID().toString().substring(0, 8);
		registry.add("ratelimit.key-prefix", () -> prefix);
		// the transcripts show every header: a slow moment on a loaded machine must not turn a decision into fail-open
		registry.add("ratelimit.timeout", () -> "5s");
	}

	@BeforeEach
	void freshBudgets() {
		Set<String> keys = this.redis.keys(this.prefix + ":*");
		if (!keys.isEmpty()) {
			this.redis.delete(keys);
		}
		// rejections this instance remembers go with the budgets
		this.denialCache.clear();
	}

	@Test
	void answersAsTheSamplePageShows() {
		String loop = "$ for i in %s; do curl -s -o /dev/null -w \"%%{http_code} \" %slocalhost:8080%s; done\n";
		StringBuilder transcript = new StringBuilder(loop.formatted("1 2 3 4 5 6", "", "/api/greeting"))
			.append(codes(6, "/api/greeting", null))
			.append(loop.formatted("1 2 3 4", "-H \"X-Tenant: acme\" ", "/api/tenant/orders"))
			.append(codes(4, "/api/tenant/orders", "acme"))
			.append("$ curl -s -o /dev/null -w \"%{http_code}\\n\" -H \"X-Tenant: globex\" localhost:8080/api/tenant/orders\n")
			.append(codes(1, "/api/tenant/orders", "globex"))
			.append(loop.formatted("1 2 3", "", "/api/reports"))
			.append(codes(3, "/api/reports", null))
			.append("$ for i in 1 2 3; do curl -s localhost:8080/api/quotes/ACME; echo; done\n");
		for (int i = 0; i < 3; i++) {
			transcript.append(CurlRequest.get(this.port, "/api/quotes/ACME").send().body()).append('\n');
		}
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "sample-app.md"),
				"SampleWebFluxApplicationTests", null), transcript.toString());
	}

	/** The status codes of so many requests, as curl's {@code -w "%{http_code} "} prints them in a loop. */
	private String codes(int requests, String path, String tenant) {
		List<String> codes = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			CurlRequest request = CurlRequest.get(this.port, path);
			if (tenant != null) {
				request.header("X-Tenant", tenant);
			}
			codes.add(Integer.toString(request.send().status()));
		}
		return String.join(" ", codes) + "\n";
	}

	@Test
	void refusesTheSixthGreetingOfAMinute() throws Exception {
		for (int i = 4; i >= 0; i--) {
			HttpResponse<String> allowed = get("/api/greeting");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.startsWith("\"greeting\";r=" + i + ";");
		}
		HttpResponse<String> refused = get("/api/greeting");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
	}

	@Test
	void givesEachTenantItsOwnBudget() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/api/tenant/orders", "X-Tenant", "acme").statusCode()).isEqualTo(200);
		}
		assertThat(get("/api/tenant/orders", "X-Tenant", "acme").statusCode()).isEqualTo(429);
		assertThat(get("/api/tenant/orders", "X-Tenant", "globex").statusCode()).isEqualTo(200);
	}

	@Test
	void limitsTheAnnotatedHandlerAndTheAsynchronousQuotes() throws Exception {
		assertThat(get("/api/reports").statusCode()).isEqualTo(200);
		assertThat(get("/api/reports").statusCode()).isEqualTo(200);
		assertThat(get("/api/reports").statusCode()).isEqualTo(429);
		assertThat(get("/api/quotes/ACME").body()).contains("\"remaining\":1");
		assertThat(get("/api/quotes/ACME").statusCode()).isEqualTo(200);
		HttpResponse<String> refused = get("/api/quotes/ACME");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.body()).contains("retryAfterSeconds");
	}

	/**
	 * Before decisions made on the event loop were answered back on it, about one response in 400 written
	 * from Lettuce's I/O thread was never sent (the client waited for its timeout).
	 */
	@Test
	void answersEveryQuoteOfManySymbols() throws Exception {
		for (int i = 0; i < 300; i++) {
			for (int remaining = 1; remaining >= 0; remaining--) {
				HttpResponse<String> quote = get("/api/quotes/S" + i, Duration.ofSeconds(5));
				assertThat(quote.statusCode()).isEqualTo(200);
				assertThat(quote.body()).contains("\"remaining\":" + remaining);
			}
		}
	}

	@Test
	void securesEveryOperationOfTheEndpoint() throws Exception {
		// an anonymous client can neither give itself its budget back, nor reload the rules, nor read a key
		assertThat(send("DELETE", "/actuator/ratelimit/greeting/127.0.0.1").statusCode()).isEqualTo(401);
		assertThat(send("POST", "/actuator/ratelimit/reload").statusCode()).isEqualTo(401);
		assertThat(send("POST", "/actuator/ratelimit/greeting/127.0.0.1").statusCode()).isEqualTo(401);
		for (String path : new String[] { "/actuator/ratelimit", "/actuator/ratelimit/greeting/127.0.0.1",
				"/actuator/metrics" }) {
			assertThat(get(path).statusCode()).as(path).isEqualTo(401);
		}
		assertThat(get("/actuator/health").statusCode()).isEqualTo(200);
		HttpResponse<String> read = get("/actuator/ratelimit/greeting/127.0.0.1", ADMIN);
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat(read.body()).contains("\"key\":\"127.0.0.1\"");
		assertThat(send("DELETE", "/actuator/ratelimit/tenant/nobody", ADMIN).statusCode()).isEqualTo(200);
	}

	/** The admin user of the sample's properties, over HTTP Basic. */
	private static final String[] ADMIN = { "Authorization",
			"Basic " + java.util.Base64.getEncoder().encodeToString("admin:change-me".getBytes()) };

	private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.timeout(Duration.ofSeconds(30));
		if (headers.length > 0) {
			request.headers(headers);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
		return get(path, Duration.ofSeconds(30), headers);
	}

	private HttpResponse<String> get(String path, Duration timeout, String... headers)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(timeout);
		if (headers.length > 0) {
			request.headers(headers);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class TestClock {

		@Bean
		MutableClock testClock() {
			// a clock that stands still: the documented transcript is of requests made within one second
			return new MutableClock(Instant.parse("2026-12-06T11:20:00Z"));
		}

		@Bean
		FixedWindowRateLimiter testFixedWindowRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new FixedWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

		@Bean
		GcraRateLimiter testGcraRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new GcraRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

	}

}

package dev.ratelimit.sample.gateway;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.redis.TokenBucketRateLimiter;
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
 * The sample's routes, as docs/gateway.md shows them with curl: each transcript is produced again, with a clock that
 * stands still, and compared with the page's text.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "server.address=127.0.0.1", "sample.embedded-redis.enabled=false" })
class SampleGatewayApplicationTests {

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
		String prefix = "sample-gw-" + UUID.randomUUID().toString().substring(0, 8);
		registry.add("ratelimit.key-prefix", () -> prefix);
		// a slow moment on a loaded machine must not turn a decision into fail-open
		registry.add("ratelimit.timeout", () -> "5s");
	}

	@Test
	void exposesTheBackendThroughItsLimitedRoutesOnly() throws Exception {
		for (String path : new String[] { "/backend/greeting", "/backend/partner", "/backend/search", "/backend/x",
				"//backend/greeting", "/backend/../backend/greeting", "/%62ackend/greeting" }) {
			for (int i = 0; i < 7; i++) {
				HttpResponse<String> direct = get(path, null);
				assertThat(direct.statusCode()).as(path).isNotEqualTo(200);
				assertThat(direct.body()).as(path).doesNotContain("Hello from");
			}
		}
		// through a route it answers
		assertThat(get("/api/partner", "backend-check").body()).isEqualTo("Hello from partner\n");
	}

	@Test
	void refusesTheSixthGreetingOfAMinute() throws Exception {
		freshBudgets();
		assertShows("greeting", "$ curl -i localhost:8081/api/greeting\n" + curl("/api/greeting", null).included());
		for (int i = 0; i < 4; i++) {
			assertThat(curl("/api/greeting", null).status()).isEqualTo(200);
		}
		assertShows("greeting-refused",
				"$ curl -i localhost:8081/api/greeting\n" + curl("/api/greeting", null).included());
	}

	@Test
	void limitsEachApiKeyUnderTwoLimits() throws Exception {
		freshBudgets();
		for (int i = 0; i < 3; i++) {
			assertThat(curl("/api/partner", "k1").status()).isEqualTo(200);
		}
		assertShows("partner",
				"$ curl -i -H 'X-Api-Key: k1' localhost:8081/api/partner\n" + curl("/api/partner", "k1").included());
		assertShows("partner-without-key", "$ curl -i localhost:8081/api/partner\n" + curl("/api/partner", null).included());
		assertThat(curl("/api/partner", "k2").status()).isEqualTo(200);
	}

	@Test
	void takesTwoTokensASearchFromABucketOfTwenty() throws Exception {
		freshBudgets();
		assertShows("search", "$ curl -i localhost:8081/api/search\n" + curl("/api/search", null).included());
	}

	private static void assertShows(String label, String transcript) {
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "gateway.md"),
				"SampleGatewayApplicationTests", label), transcript);
	}

	private CurlRequest.Response curl(String path, String apiKey) {
		CurlRequest request = CurlRequest.get(this.port, path);
		if (apiKey != null) {
			request.header("X-Api-Key", apiKey);
		}
		return request.send();
	}

	private void freshBudgets() {
		Set<String> keys = this.redis.keys(this.prefix + ":*");
		if (!keys.isEmpty()) {
			this.redis.delete(keys);
		}
		this.denialCache.clear();
	}

	private HttpResponse<String> get(String path, String apiKey) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(10));
		if (apiKey != null) {
			request.header("X-Api-Key", apiKey);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class TestClock {

		@Bean
		MutableClock testClock() {
			// a clock that stands still, at the start of a day: the documented transcripts are of requests made
			// within one second
			return new MutableClock(Instant.parse("2026-12-06T00:00:00Z"));
		}

		@Bean
		FixedWindowRateLimiter testFixedWindowRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new FixedWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

		@Bean
		TokenBucketRateLimiter testTokenBucketRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new TokenBucketRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

	}

}

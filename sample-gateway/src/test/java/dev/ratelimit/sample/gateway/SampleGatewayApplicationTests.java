package dev.ratelimit.sample.gateway;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's routes, as its documentation shows them with curl.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "server.address=127.0.0.1", "sample.embedded-redis.enabled=false" })
class SampleGatewayApplicationTests {

	private static final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		registry.add("ratelimit.key-prefix", () -> "sample-gw-" + UUID.randomUUID().toString().substring(0, 8));
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
		for (int remaining = 4; remaining >= 0; remaining--) {
			HttpResponse<String> greeting = get("/api/greeting", null);
			assertThat(greeting.statusCode()).isEqualTo(200);
			assertThat(greeting.body()).isEqualTo("Hello from greeting\n");
			assertThat(greeting.headers().firstValue("RateLimit-Policy")).hasValue("\"greeting\";q=5;w=60");
			String expected = "\"greeting\";r=" + remaining + ";t=";
			assertThat(greeting.headers().firstValue("RateLimit"))
				.hasValueSatisfying((value) -> assertThat(value).startsWith(expected));
		}
		HttpResponse<String> refused = get("/api/greeting", null);
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
	}

	@Test
	void limitsEachApiKeyUnderTwoLimits() throws Exception {
		assertThat(get("/api/partner", null).statusCode()).isEqualTo(403);
		HttpResponse<String> first = get("/api/partner", "key-1");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("RateLimit-Policy"))
			.hasValue("\"partner-1m\";q=3;w=60, \"partner-1d\";q=100;w=86400");
		get("/api/partner", "key-1");
		get("/api/partner", "key-1");
		assertThat(get("/api/partner", "key-1").statusCode()).isEqualTo(429);
		assertThat(get("/api/partner", "key-2").statusCode()).isEqualTo(200);
	}

	@Test
	void takesTwoTokensASearchFromABucketOfTwenty() throws Exception {
		HttpResponse<String> search = get("/api/search", null);
		assertThat(search.statusCode()).isEqualTo(200);
		assertThat(search.headers().firstValue("RateLimit-Policy")).hasValue("\"search\";q=10;w=1");
		assertThat(search.headers().firstValue("RateLimit")).hasValueSatisfying(
				(value) -> assertThat(value).startsWith("\"search\";r=18;"));
	}

	private HttpResponse<String> get(String path, String apiKey) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(10));
		if (apiKey != null) {
			request.header("X-Api-Key", apiKey);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}

package dev.ratelimit.sample.webflux;

import java.io.IOException;
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
 * The WebFlux sample as its documentation's curl commands use it, on Netty and a real Redis.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "server.address=127.0.0.1")
class SampleWebFluxApplicationTests {

	private static final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		registry.add("ratelimit.key-prefix", () -> "sample-webflux-" + UUID.randomUUID().toString().substring(0, 8));
	}

	@Test
	void refusesTheSixthGreetingOfAMinute() throws Exception {
		for (int i = 4; i >= 0; i--) {
			HttpResponse<String> allowed = get("/api/greeting");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"greeting\";r=" + i + ";");
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

}

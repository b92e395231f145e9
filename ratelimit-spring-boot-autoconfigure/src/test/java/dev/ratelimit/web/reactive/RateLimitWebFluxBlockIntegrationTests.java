package dev.ratelimit.web.reactive;

import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.web.TestClockConfiguration;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.reactive.RateLimitWebFluxTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules with {@code block-for} on Netty and a real Redis, with a clock the test moves: failed sign-ins
 * counted, then the user blocked across windows, longer the second time, as on the servlet stack.
 */
@SpringBootTest(classes = { RateLimitWebFluxTestApplication.class, TestClockConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { RateLimitWebFluxTestApplication.REACTIVE, RateLimitWebFluxTestApplication.LOOPBACK,
				"ratelimit.rules.sign-in.paths=/sign-in", "ratelimit.rules.sign-in.key=param:user",
				"ratelimit.rules.sign-in.limit=2", "ratelimit.rules.sign-in.window=1m",
				"ratelimit.rules.sign-in.count-statuses=401", "ratelimit.rules.sign-in.block-for=15m",
				"ratelimit.rules.sign-in.block-multiplier=3", "ratelimit.rules.api.paths=/api/**",
				"ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1s", "ratelimit.rules.api.block-for=1m" })
class RateLimitWebFluxBlockIntegrationTests {

	@LocalServerPort
	private int port;

	@Autowired
	private MutableClock clock;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RateLimitWebFluxTestApplication.register(registry);
	}

	@Test
	void countsFailedSignInsThenBlocksTheUserLongerTheSecondTime() throws Exception {
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		HttpResponse<String> refused = signIn("mallory", "secret");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("900");
		this.clock.advance(Duration.ofMinutes(14));
		assertThat(signIn("mallory", "secret").headers().firstValue("Retry-After")).hasValue("60");
		assertThat(signIn("trent", "secret").statusCode()).isEqualTo(200);
		this.clock.advance(Duration.ofMinutes(2));
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").statusCode()).isEqualTo(401);
		assertThat(signIn("mallory", "guess").headers().firstValue("Retry-After")).hasValue("2700");
	}

	@Test
	void blocksAKeyChargedBeforeTheHandler() throws Exception {
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/api/items").headers().firstValue("Retry-After")).hasValue("60");
		this.clock.advance(Duration.ofSeconds(59));
		assertThat(get(this.port, "/api/items").headers().firstValue("Retry-After")).hasValue("1");
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(get(this.port, "/api/items").statusCode()).isEqualTo(200);
	}

	private HttpResponse<String> signIn(String user, String password) throws Exception {
		return get(this.port, "/sign-in?user=" + user + "&password=" + password);
	}

}

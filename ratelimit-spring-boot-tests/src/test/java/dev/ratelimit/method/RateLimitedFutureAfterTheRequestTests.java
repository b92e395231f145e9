package dev.ratelimit.method;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.RateLimited;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @RateLimited} method returning a {@code CompletableFuture}, called from a servlet request whose handler does
 * not wait for it (answers 202, sends the mail later), on a real Tomcat: what the call needs of the request is read
 * when the call is made, so that a decision that completes after the request has ended (and Tomcat recycled it) runs
 * the method exactly when it charged the call.
 */
@SpringBootTest(classes = RateLimitedFutureAfterTheRequestTests.Application.class,
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "server.address=127.0.0.1", "ratelimit.timeout=5s",
				"spring.autoconfigure.exclude=org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
						+ "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration,"
						+ "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration,"
						+ "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration,"
						+ "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
class RateLimitedFutureAfterTheRequestTests {

	private static final int CALLS = 24;

	private static final List<RateLimit> HOURLY = List.of(RateLimit.of(5, Duration.ofHours(1)));

	private static final String PREFIX = "future-after-request-" + UUID.randomUUID().toString().substring(0, 8);

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		registry.add("ratelimit.key-prefix", () -> PREFIX);
	}

	@LocalServerPort
	int port;

	@Autowired
	Mailer mailer;

	@Autowired
	Gate gate;

	@Autowired
	org.springframework.context.ApplicationContext context;

	@Test
	void runsEveryCallItChargesThoughItIsDecidedAfterTheRequestEnded() throws Exception {
		HttpClient client = HttpClient.newHttpClient();
		String run = UUID.randomUUID().toString().substring(0, 8);
		for (int i = 0; i < CALLS; i++) {
			HttpResponse<String> answer = client.send(HttpRequest
				.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/mail"))
				.header("X-User", run + "-" + i)
				.POST(HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
			// answered before the call was decided: its decision waits for the gate
			assertThat(answer.statusCode()).isEqualTo(202);
		}
		assertThat(this.mailer.sent()).isZero();
		// every request has ended (Tomcat recycles it): the decisions complete now
		this.gate.open.countDown();
		RateLimiter limiter = this.context.getBean("fixedWindowRateLimiter", RateLimiter.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.mailer.sent() == CALLS);
		int charged = 0;
		for (int i = 0; i < CALLS; i++) {
			charged += 5 - (int) limiter.inspect("mail:header:" + run + "-" + i, HOURLY).get(0).remaining();
		}
		assertThat(charged).isEqualTo(CALLS);
		assertThat(this.mailer.sent()).isEqualTo(CALLS);
		assertThat(this.mailer.failed()).isZero();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Mailer.class, MailController.class })
	static class Application {

		@Bean
		Gate gate() {
			return new Gate();
		}

		/** Holds each call's plan, and so its decision, until the test has every answer. */
		@Bean
		RateLimitPlanResolver heldPlans(Gate gate) {
			return (rule, key) -> {
				try {
					gate.open.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return null;
			};
		}

	}

	static class Gate {

		final CountDownLatch open = new CountDownLatch(1);

	}

	static class Mailer {

		private final AtomicInteger sent = new AtomicInteger();

		private final AtomicInteger failed = new AtomicInteger();

		int sent() {
			return this.sent.get();
		}

		int failed() {
			return this.failed.get();
		}

		void failed(Throwable failure) {
			this.failed.incrementAndGet();
		}

		@RateLimited(name = "mail", limit = 5, window = "1h", key = "header:X-User", plan = "bean:heldPlans",
				plans = @RateLimited.Plan(name = "bulk", limit = 50, window = "1h"))
		public CompletableFuture<Void> send(String to) {
			this.sent.incrementAndGet();
			return CompletableFuture.completedFuture(null);
		}

	}

	@RestController
	static class MailController {

		private final Mailer mailer;

		MailController(Mailer mailer) {
			this.mailer = mailer;
		}

		@PostMapping("/mail")
		ResponseEntity<Void> mail(@RequestHeader("X-User") String user) {
			// sent later: the answer does not wait
			this.mailer.send(user).whenComplete((done, failure) -> {
				if (failure != null) {
					this.mailer.failed(failure);
				}
			});
			return ResponseEntity.accepted().build();
		}

	}

}

package dev.ratelimit.web;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.jayway.jsonpath.JsonPath;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.testsupport.CurlRequest;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.RateLimitFields;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Import;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spring Framework 7's own {@code @ConcurrencyLimit(policy = REJECT)} refusing a call a web handler made, on every
 * stack with a real Redis: its {@code InvocationRejectedException} is answered as the rate limiter answers its
 * refusals (a problem detail, 503 by default, 429 with a {@code Retry-After} when configured, the headers of the
 * request's own rules kept), where Spring alone answers 500.
 */
class RateLimitInvocationRejectedOnEveryStackTests {

	private static final StackApps defaults = new StackApps(Map.of(), BusyEndpoints.class);

	private static final StackApps configured = new StackApps(Map.of("ratelimit.invocation-rejected.status", "429",
			"ratelimit.invocation-rejected.retry-after", "1500ms", "ratelimit.rules.busy.paths", "/busy",
			"ratelimit.rules.busy.limit", "100", "ratelimit.rules.busy.window", "1m"), BusyEndpoints.class);

	@AfterAll
	static void stop() {
		defaults.close();
		configured.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aCallTheConcurrencyLimitRefusesIsAnsweredWith503AndAProblemDetail(WebStack stack) throws Exception {
		StackApp app = defaults.on(stack);
		StackApp.Reply refused = whileBusy(app, () -> app.get("/busy"));
		assertThat(refused.status()).isEqualTo(503);
		assertThat(refused.header("Content-Type")).hasValue("application/problem+json");
		assertThat((Integer) JsonPath.read(refused.body(), "$.status")).isEqualTo(503);
		assertThat((String) JsonPath.read(refused.body(), "$.detail"))
			.isEqualTo("Too many calls of this operation are in progress; try again later.");
		assertThat((String) JsonPath.read(refused.body(), "$.instance")).isEqualTo("/busy");
		assertThat(refused.header("Retry-After")).isEmpty();
		// once the call in progress has ended, the next one is served
		assertThat(app.get("/busy").status()).isEqualTo(200);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void theStatusAndRetryAfterAreConfigurableAndTheRequestsOwnHeadersStay(WebStack stack) throws Exception {
		StackApp app = configured.on(stack);
		StackApp.Reply refused = whileBusy(app, () -> app.get("/busy"));
		assertThat(refused.status()).isEqualTo(429);
		assertThat((Integer) JsonPath.read(refused.body(), "$.status")).isEqualTo(429);
		assertThat((String) JsonPath.read(refused.body(), "$.detail"))
			.isEqualTo("Too many calls of this operation are in progress; retry after 2 seconds.");
		assertThat(refused.header("Retry-After")).hasValue("2");
		assertThat(refused.header("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"busy\";q=100;w=60");
		assertThat(refused.header("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"busy\";r=99;"));
		if (stack == WebStack.SERVLET) {
			// as docs/rules.md shows it
			int port = Integer.parseInt(app.context().getEnvironment().getRequiredProperty("local.server.port"));
			String transcript = "$ curl -si localhost:8080/busy\n"
					+ whileBusy(app, () -> CurlRequest.get(port, "/busy").send()).included() + "\n";
			DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "rules.md"),
					"RateLimitInvocationRejectedOnEveryStackTests", null), transcript);
		}
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aStatusOtherThan503Or429StopsTheApplicationNamingTheProperty(WebStack stack) {
		assertThatThrownBy(() -> stack.start(Map.of("ratelimit.invocation-rejected.status", "500"), BusyEndpoints.class))
			.hasRootCauseInstanceOf(InvalidConfigurationPropertyValueException.class)
			.rootCause()
			.hasMessageContaining("ratelimit.invocation-rejected.status")
			.hasMessageContaining("Use 503");
	}

	/** Sends a request while another call holds the service's one slot, on a thread of the test's own. */
	private static <T> T whileBusy(StackApp app, Supplier<T> request) throws Exception {
		BusyService service = app.context().getBean(BusyService.class);
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> service.work(entered, release));
		try {
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			return request.get();
		}
		finally {
			release.countDown();
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		}
	}

	@Import(BusyService.class)
	@EnableResilientMethods
	@RestController
	static class BusyEndpoints {

		private final BusyService service;

		BusyEndpoints(BusyService service) {
			this.service = service;
		}

		@GetMapping("/busy")
		String busy() {
			return this.service.work(null, null);
		}

	}

	static class BusyService {

		/** One call at a time in this JVM; another is refused with {@code InvocationRejectedException}. */
		@ConcurrencyLimit(limit = 1, policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
		public String work(@Nullable CountDownLatch entered, @Nullable CountDownLatch release) {
			if (entered != null && release != null) {
				entered.countDown();
				try {
					release.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return "done";
		}

	}

}

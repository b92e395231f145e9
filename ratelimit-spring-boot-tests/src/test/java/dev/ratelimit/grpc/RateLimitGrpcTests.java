package dev.ratelimit.grpc;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.testsupport.ClosedPort;
import io.grpc.Status;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.grpc.server.security.AuthenticationProcessInterceptor;
import org.springframework.grpc.server.security.GrpcSecurity;
import org.springframework.security.config.Customizer;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The rules on gRPC calls, made by a real grpc-java client against Spring Boot's gRPC server on 127.0.0.1 (its own
 * Netty server, and gRPC hosted in Tomcat) with a real Redis: rules match full method names, refusals end with
 * {@code RESOURCE_EXHAUSTED}, a {@code RetryInfo} and the rate-limit trailers (never the HTTP 429 that gRPC clients
 * read as {@code UNAVAILABLE}), streaming calls are charged once, keys come from metadata, the peer and the
 * principal Spring Security's gRPC authentication sets, and {@code fail-closed} ends calls with {@code UNAVAILABLE}.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitGrpcTests {

	private static final Map<String, String> RULES = Map.ofEntries(
			Map.entry("ratelimit.rules.hello.paths", "/test.Greeter/SayHello"),
			Map.entry("ratelimit.rules.hello.key", "header:x-api-key"), Map.entry("ratelimit.rules.hello.limit", "2"),
			Map.entry("ratelimit.rules.hello.window", "1m"), Map.entry("ratelimit.rules.count.paths", "/test.Greeter/C*"),
			Map.entry("ratelimit.rules.count.limit", "2"), Map.entry("ratelimit.rules.count.window", "1m"),
			Map.entry("ratelimit.rules.uploads.paths", "/test.Greeter/Upload"),
			Map.entry("ratelimit.rules.uploads.limit", "2"), Map.entry("ratelimit.rules.uploads.window", "1m"),
			Map.entry("ratelimit.rules.http.paths", "/http"), Map.entry("ratelimit.rules.http.limit", "1"),
			Map.entry("ratelimit.rules.http.window", "1m"),
			// what the servlet filter would match for a gRPC call (the path within the gRPC servlet's mapping), were
			// it to take gRPC requests: it must leave them to the interceptors, whose paths are full method names
			Map.entry("ratelimit.rules.servlet-path.paths", "/SayHello"),
			Map.entry("ratelimit.rules.servlet-path.limit", "1"), Map.entry("ratelimit.rules.servlet-path.window", "1m"));

	// the rules of the tests that call for rules of their own: a queue on SayHello, and a concurrency limit on Upload
	// (no test of theirs calls the other's method)
	private static final Map<String, String> QUEUE_AND_CONCURRENCY_RULES = Map.of("ratelimit.rules.queue.paths",
			"/test.Greeter/SayHello", "ratelimit.rules.queue.key", "header:x-api-key", "ratelimit.rules.queue.limit",
			"2", "ratelimit.rules.queue.window", "1s", "ratelimit.rules.queue.max-wait", "10s",
			"ratelimit.rules.exports.paths", "/test.Greeter/Upload", "ratelimit.rules.exports.key", "header:x-tenant",
			"ratelimit.rules.exports.concurrency", "1");

	private static final Map<GrpcStack, GrpcApp> apps = new EnumMap<>(GrpcStack.class);

	private static final Map<GrpcStack, GrpcApp> queueAndConcurrencyApps = new EnumMap<>(GrpcStack.class);

	private static final Map<GrpcStack, GrpcApp> failClosedApps = new EnumMap<>(GrpcStack.class);

	/** What the shared servlet application warned of unmapped rules as it started. */
	private static List<String> servletStartupWarnings = List.of();

	/**
	 * Starts the servlet application the tests share while the output is captured, so that the test of its startup
	 * warnings reads them from it rather than starting one more application of the same configuration.
	 */
	@BeforeAll
	static void startTheSharedServletApplication(CapturedOutput output) {
		apps.put(GrpcStack.SERVLET, GrpcStack.SERVLET.start(RULES));
		servletStartupWarnings = output.getAll()
			.lines()
			.filter((line) -> line.contains("matches no path a handler of this application maps"))
			.toList();
	}

	@AfterAll
	static void stop() {
		apps.values().forEach(GrpcApp::close);
		queueAndConcurrencyApps.values().forEach(GrpcApp::close);
		failClosedApps.values().forEach(GrpcApp::close);
	}

	/** The application of a stack, shared by the tests, on a connection of the test's own. */
	private static GrpcApp app(GrpcStack stack) {
		return shared(apps, stack, RULES);
	}

	/** The application of a stack and rules, shared by the tests, on a connection of the test's own. */
	private static GrpcApp shared(Map<GrpcStack, GrpcApp> running, GrpcStack stack, Map<String, String> rules) {
		GrpcApp app = running.get(stack);
		if (app == null) {
			app = stack.start(rules);
			running.put(stack, app);
		}
		else {
			// a test before may have refused a stream its client was still sending: in Tomcat, that may cost the
			// connection (the test failed so once, its first call lost)
			app.reconnect();
		}
		return app;
	}

	@Test
	void warnsOfNoRuleWhosePathsAreTheServicesMethodsInAServletApplication() {
		// the servlet filter's path of a gRPC call is no method's: the check ran, and names it
		assertThat(servletStartupWarnings).anyMatch((line) -> line.contains("'servlet-path'"))
			.noneMatch((line) -> line.contains("'hello'") || line.contains("'count'") || line.contains("'uploads'"));
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void refusesACallOverTheLimitOfItsMethodWithResourceExhaustedRetryInfoAndTrailers(GrpcStack stack) {
		GrpcApp app = app(stack);
		TestGreeter greeter = app.context().getBean(TestGreeter.class);
		int before = greeter.received.get();
		Map<String, String> alice = Map.of("x-api-key", "alice-" + stack);
		GrpcApp.Reply first = app.call(TestGreeter.SAY_HELLO, "one", alice);
		assertThat(first.code()).isEqualTo(Status.Code.OK);
		assertThat(first.messages()).containsExactly("hello one");
		// an allowed call carries the rate-limit values in its response headers
		assertThat(RateLimitFields.withoutPartitionKeys(first.header("ratelimit"))).isEqualTo("\"hello\";r=1;t=60");
		assertThat(RateLimitFields.withoutPartitionKeys(first.header("ratelimit-policy"))).isEqualTo("\"hello\";q=2;w=60");
		assertThat(app.call(TestGreeter.SAY_HELLO, "two", alice).code()).isEqualTo(Status.Code.OK);
		GrpcApp.Reply refused = app.call(TestGreeter.SAY_HELLO, "three", alice);
		assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.details()).isNotNull();
		assertThat(refused.details().getMessage()).startsWith("Rate limit 'hello' of 2 per minute exceeded");
		assertThat(refused.retryDelay()).isGreaterThan(Duration.ZERO).isLessThanOrEqualTo(Duration.ofMinutes(1));
		assertThat(RateLimitFields.withoutPartitionKeys(refused.trailer("ratelimit"))).startsWith("\"hello\";r=0;t=");
		assertThat(RateLimitFields.withoutPartitionKeys(refused.trailer("ratelimit-policy"))).isEqualTo("\"hello\";q=2;w=60");
		// in the headers too, where Tomcat keeps Retry-After (HTTP allows it in no trailers)
		assertThat(refused.header("ratelimit")).isEqualTo(refused.trailer("ratelimit"));
		assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(1L, 60L);
		// the service never saw the refused call; another key has its own budget
		assertThat(greeter.received.get() - before).isEqualTo(2);
		assertThat(app.call(TestGreeter.SAY_HELLO, "four", Map.of("x-api-key", "bob-" + stack)).code())
			.isEqualTo(Status.Code.OK);
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void aCallTheRuleWouldRefuseWaitsForItsPermitWithMaxWait(GrpcStack stack) throws Exception {
		GrpcApp app = shared(queueAndConcurrencyApps, stack, QUEUE_AND_CONCURRENCY_RULES);
		// warmed up: a first call's own latency would blur the windows' bursts
		assertThat(app.call(TestGreeter.SAY_HELLO, "warm", Map.of("x-api-key", "warm")).code()).isEqualTo(Status.Code.OK);
		TestGreeter greeter = app.context().getBean(TestGreeter.class);
		greeter.helloTimes.clear();
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(6);
		try {
			java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
			java.util.List<java.util.concurrent.Future<GrpcApp.Reply>> calls = new java.util.ArrayList<>();
			for (int i = 0; i < 6; i++) {
				calls.add(threads.submit(() -> {
					start.await();
					return app.call(TestGreeter.SAY_HELLO, "w", Map.of("x-api-key", "queued"));
				}));
			}
			start.countDown();
			for (java.util.concurrent.Future<GrpcApp.Reply> call : calls) {
				assertThat(call.get(30, java.util.concurrent.TimeUnit.SECONDS).code()).isEqualTo(Status.Code.OK);
			}
			// six calls against two a second reached the service in successive windows, never more than two in one
			assertThat(dev.ratelimit.testsupport.Waiters.perWindow(greeter.helloTimes)).as("calls per window")
				.allSatisfy((count) -> assertThat(count).isLessThanOrEqualTo(2))
				.hasSizeLessThanOrEqualTo(4);
		}
		finally {
			threads.shutdownNow();
		}
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void chargesAStreamingCallOnceWhenItStarts(GrpcStack stack) {
		GrpcApp app = app(stack);
		// three messages each: a call charged per message would be refused at the second
		assertThat(app.call(TestGreeter.COUNT, "a").messages()).containsExactly("a 1", "a 2", "a 3");
		assertThat(app.call(TestGreeter.COUNT, "b").messages()).containsExactly("b 1", "b 2", "b 3");
		GrpcApp.Reply refused = app.call(TestGreeter.COUNT, "c");
		assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.messages()).isEmpty();
		assertThat(refused.details().getMessage()).startsWith("Rate limit 'count'");
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void chargesAClientStreamingCallOnceWhateverItSends(GrpcStack stack) {
		GrpcApp app = app(stack);
		// three messages each: a call charged per message would be refused at the first
		assertThat(app.call(TestGreeter.UPLOAD, "a,b,c").messages()).containsExactly("3 parts");
		assertThat(app.call(TestGreeter.UPLOAD, "d,e,f").messages()).containsExactly("3 parts");
		GrpcApp.Reply refused = app.call(TestGreeter.UPLOAD, "g,h,i");
		assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.details().getMessage()).startsWith("Rate limit 'uploads'");
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void endsACallRefusedByALimitedBeanMethodOfTheServiceWithResourceExhausted(GrpcStack stack) {
		GrpcApp app = app(stack);
		Map<String, String> key = Map.of("x-api-key", "sender-" + stack);
		assertThat(app.call(TestGreeter.SEND, "one", key).messages()).containsExactly("sent one");
		GrpcApp.Reply refused = app.call(TestGreeter.SEND, "two", key);
		assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.retryDelay()).isGreaterThan(Duration.ZERO);
		assertThat(RateLimitFields.withoutPartitionKeys(refused.trailer("ratelimit-policy"))).contains(";q=1;w=60");
		// the method's key is read from the call's metadata: another key has its own budget
		assertThat(app.call(TestGreeter.SEND, "three", Map.of("x-api-key", "other-" + stack)).code())
			.isEqualTo(Status.Code.OK);
	}

	@Test
	void theServletFilterStillAnswersHttpRequestsBesideGrpcWhateverTheirContentType() throws Exception {
		GrpcApp app = app(GrpcStack.SERVLET);
		int port = ((org.springframework.boot.web.server.context.WebServerApplicationContext) app.context())
			.getWebServer()
			.getPort();
		HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		// a gRPC content type is the client's word: it does not take a request to another servlet past the filter
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/http"))
			.header("Content-Type", "application/grpc")
			.build();
		assertThat(client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
		HttpResponse<String> refused = client.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void holdsASlotOfACallInFlightUntilItEndsOrIsCancelled(GrpcStack stack) throws Exception {
		GrpcApp app = shared(queueAndConcurrencyApps, stack, QUEUE_AND_CONCURRENCY_RULES);
		Map<String, String> acme = Map.of("x-tenant", "acme");
		TestGreeter greeter = app.context().getBean(TestGreeter.class);
		int before = greeter.received.get();
		// held apart from the calls refused beside them: Tomcat may end their connection (docs/grpc.md)
		GrpcApp.Open first = app.openApart(TestGreeter.UPLOAD, "part", acme);
		await().atMost(Duration.ofSeconds(10)).until(() -> greeter.received.get() == before + 1);
		GrpcApp.Reply refused = app.call(TestGreeter.UPLOAD, "a,b", acme);
		assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.details().getMessage())
			.startsWith("Too many requests in flight: 'exports' allows 1 at a time");
		// another tenant's budget: in Tomcat the refused upload may cost the channel's connection (GOAWAY
		// ENHANCE_YOUR_CALM, which grpc-java reports as RESOURCE_EXHAUSTED, docs/grpc.md) before it reconnects
		await().atMost(Duration.ofSeconds(10))
			.until(() -> app.call(TestGreeter.UPLOAD, "a,b", Map.of("x-tenant", "other")).code() == Status.Code.OK);
		// a call the client cancels gives its slot back
		first.call().cancel("the test goes away", null);
		assertThat(first.closed().get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> app.call(TestGreeter.UPLOAD, "a,b", acme).code() == Status.Code.OK);
		// a call that ends gives it back too
		GrpcApp.Open second = openHolding(app, greeter, acme);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> app.call(TestGreeter.UPLOAD, "a", acme).code() == Status.Code.RESOURCE_EXHAUSTED);
		second.call().halfClose();
		assertThat(second.closed().get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
		for (int i = 0; i < 3; i++) {
			assertThat(app.call(TestGreeter.UPLOAD, "a", acme).code()).isEqualTo(Status.Code.OK);
		}
	}

	/**
	 * Opens an upload that holds the key's slot: the slot of a call that just ended is given back a moment after its
	 * client has the status, so a call opened at once may still be refused; then it opens another.
	 */
	private static GrpcApp.Open openHolding(GrpcApp app, TestGreeter greeter, Map<String, String> metadata) {
		AtomicReference<GrpcApp.Open> holding = new AtomicReference<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			int received = greeter.received.get();
			GrpcApp.Open open = app.openApart(TestGreeter.UPLOAD, "part", metadata);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> greeter.received.get() > received || open.closed().isDone());
			if (open.closed().isDone()) {
				return false;
			}
			holding.set(open);
			return true;
		});
		return holding.get();
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void failClosedEndsACallThatCannotBeDecidedWithUnavailable(GrpcStack stack) {
		GrpcApp app = failClosedApps.computeIfAbsent(stack,
				(key) -> key.start(Map.of("spring.data.redis.url", "redis://127.0.0.1:" + ClosedPort.reserve(),
						"ratelimit.failure-mode", "fail-closed", "ratelimit.rules.hello.paths", "/test.Greeter/**",
						"ratelimit.rules.hello.limit", "5", "ratelimit.rules.hello.window", "1m")));
		GrpcApp.Reply refused = app.call(TestGreeter.SAY_HELLO, "one");
		assertThat(refused.code()).isEqualTo(Status.Code.UNAVAILABLE);
		assertThat(refused.details().getMessage()).contains("fail-closed");
		assertThat(refused.retryDelay()).isEqualTo(Duration.ofSeconds(1));
		assertThat(app.context().getBean(TestGreeter.class).received.get()).isZero();
	}

	@Test
	void appliesPrincipalRulesAfterSpringSecuritysGrpcAuthenticationAndTheOthersBeforeIt() {
		try (GrpcApp app = GrpcStack.NETTY.start(SecuredApplication.class,
				Map.of("ratelimit.rules.login.paths", "/test.Greeter/Whoami", "ratelimit.rules.login.limit", "4",
						"ratelimit.rules.login.window", "1m", "ratelimit.rules.user.paths", "/test.Greeter/Whoami",
						"ratelimit.rules.user.key", "principal", "ratelimit.rules.user.limit", "1",
						"ratelimit.rules.user.window", "1m"))) {
			Map<String, String> wrongPassword = basic("alice", "wrong");
			GrpcApp.Reply unauthenticated = app.call(TestGreeter.WHOAMI, "", wrongPassword);
			assertThat(unauthenticated.code()).isNotIn(Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED);
			assertThat(app.call(TestGreeter.WHOAMI, "", basic("alice", "secret")).messages()).containsExactly("alice");
			// the principal's own budget, after authentication
			GrpcApp.Reply second = app.call(TestGreeter.WHOAMI, "", basic("alice", "secret"));
			assertThat(second.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
			assertThat(second.details().getMessage()).startsWith("Rate limit 'user'");
			assertThat(app.call(TestGreeter.WHOAMI, "", basic("bob", "secret")).messages()).containsExactly("bob");
			// the address's budget is spent (four calls): refused before authentication, whatever the credentials
			GrpcApp.Reply refused = app.call(TestGreeter.WHOAMI, "", wrongPassword);
			assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
			assertThat(refused.details().getMessage()).startsWith("Rate limit 'login'");
		}
	}

	private static Map<String, String> basic(String user, String password) {
		return Map.of("authorization", "Basic "
				+ Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
	}

	/** The test service behind Spring Security's gRPC authentication: {@code Whoami} needs an authenticated user. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(GrpcStack.Services.class)
	static class SecuredApplication {

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(User.withUsername("alice").password("{noop}secret").build(),
					User.withUsername("bob").password("{noop}secret").build());
		}

		@Bean
		@GlobalServerInterceptor
		AuthenticationProcessInterceptor grpcAuthentication(GrpcSecurity grpc) throws Exception {
			return grpc
				.authorizeRequests((requests) -> requests.methods("test.Greeter/Whoami").authenticated().allRequests().permitAll())
				.httpBasic(Customizer.withDefaults())
				.build();
		}

	}

}

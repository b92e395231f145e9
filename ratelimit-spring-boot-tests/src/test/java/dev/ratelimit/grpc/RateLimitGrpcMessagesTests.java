package dev.ratelimit.grpc;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.grpc.Status;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules that charge each message of a streaming gRPC call ({@code charge-per-message}), with a real grpc-java client
 * against Spring Boot's Netty gRPC server and gRPC in Tomcat, on a real Redis: a client or bidirectional stream
 * carries exactly as many messages to the service as the rule's limit allows, and ends with
 * {@code RESOURCE_EXHAUSTED} and a {@code RetryInfo}; unary and server-streaming calls are charged once, as before;
 * a rule that cannot charge messages stops startup.
 */
class RateLimitGrpcMessagesTests {

	private static final int LIMIT = 5;

	// sliding-window logs of an hour: exact counts, whenever the test runs
	private static final Map<String, String> RULES = Map.ofEntries(
			Map.entry("ratelimit.rules.chat.paths", "/test.Greeter/Chat"),
			Map.entry("ratelimit.rules.chat.key", "header:x-api-key"),
			Map.entry("ratelimit.rules.chat.limit", String.valueOf(LIMIT)),
			Map.entry("ratelimit.rules.chat.window", "1h"),
			Map.entry("ratelimit.rules.chat.algorithm", "sliding-window-log"),
			Map.entry("ratelimit.rules.chat.charge-per-message", "true"),
			Map.entry("ratelimit.rules.uploads.paths", "/test.Greeter/Upload"),
			Map.entry("ratelimit.rules.uploads.key", "header:x-api-key"),
			Map.entry("ratelimit.rules.uploads.limit", String.valueOf(LIMIT)),
			Map.entry("ratelimit.rules.uploads.window", "1h"),
			Map.entry("ratelimit.rules.uploads.algorithm", "sliding-window-log"),
			Map.entry("ratelimit.rules.uploads.charge-per-message", "true"),
			Map.entry("ratelimit.rules.calls.paths", "/test.Greeter/SayHello,/test.Greeter/Count"),
			Map.entry("ratelimit.rules.calls.key", "header:x-api-key"), Map.entry("ratelimit.rules.calls.limit", "2"),
			Map.entry("ratelimit.rules.calls.window", "1h"),
			Map.entry("ratelimit.rules.calls.algorithm", "sliding-window-log"),
			Map.entry("ratelimit.rules.calls.charge-per-message", "true"));

	private static final Map<GrpcStack, GrpcApp> apps = new EnumMap<>(GrpcStack.class);

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class));

	@AfterAll
	static void stop() {
		apps.values().forEach(GrpcApp::close);
	}

	private static GrpcApp app(GrpcStack stack) {
		return apps.computeIfAbsent(stack, (key) -> key.start(RULES));
	}

	private static List<String> messages(int count) {
		return IntStream.rangeClosed(1, count).mapToObj((i) -> "m" + i).toList();
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void aBidirectionalStreamCarriesAsManyMessagesAsItsRuleAllowsThenEndsWithResourceExhausted(GrpcStack stack) {
		GrpcApp app = app(stack);
		TestGreeter greeter = app.context().getBean(TestGreeter.class);
		Map<String, String> key = Map.of("x-api-key", "chat-" + stack);
		int before = greeter.messages.get();
		GrpcApp.Reply refused = app.stream(TestGreeter.CHAT, messages(20), key);
		assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.details()).isNotNull();
		assertThat(refused.details().getMessage()).startsWith("Rate limit 'chat' of 5 per hour exceeded");
		assertThat(refused.retryDelay()).isGreaterThan(Duration.ZERO).isLessThanOrEqualTo(Duration.ofHours(1));
		assertThat(refused.trailer("ratelimit")).startsWith("\"chat\";r=0;t=");
		// exactly the limit's messages reached the service, in order, and no further one
		assertThat(refused.messages()).containsExactly("echo m1", "echo m2", "echo m3", "echo m4", "echo m5");
		assertThat(greeter.messages.get() - before).isEqualTo(LIMIT);
		// the budget is spent: the next call is refused when it starts
		assertThat(app.stream(TestGreeter.CHAT, messages(3), key).code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(greeter.messages.get() - before).isEqualTo(LIMIT);
		// a call within the budget ends as its service ends it
		GrpcApp.Reply other = app.stream(TestGreeter.CHAT, messages(LIMIT),
				Map.of("x-api-key", "other-chat-" + stack));
		assertThat(other.code()).isEqualTo(Status.Code.OK);
		assertThat(other.messages()).hasSize(LIMIT);
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void aClientStreamCarriesAsManyMessagesAsItsRuleAllowsThenEndsWithResourceExhausted(GrpcStack stack) {
		GrpcApp app = app(stack);
		TestGreeter greeter = app.context().getBean(TestGreeter.class);
		Map<String, String> key = Map.of("x-api-key", "upload-" + stack);
		int before = greeter.messages.get();
		GrpcApp.Reply refused = app.stream(TestGreeter.UPLOAD, messages(20), key);
		assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.details().getMessage()).startsWith("Rate limit 'uploads' of 5 per hour exceeded");
		assertThat(refused.retryDelay()).isGreaterThan(Duration.ZERO);
		assertThat(refused.messages()).isEmpty();
		assertThat(greeter.messages.get() - before).isEqualTo(LIMIT);
		// a stream within the budget: 2 messages of a new key's 5, then 3 more, then none
		Map<String, String> small = Map.of("x-api-key", "small-upload-" + stack);
		assertThat(app.stream(TestGreeter.UPLOAD, messages(2), small).messages()).containsExactly("2 parts");
		assertThat(app.stream(TestGreeter.UPLOAD, messages(3), small).messages()).containsExactly("3 parts");
		assertThat(app.stream(TestGreeter.UPLOAD, messages(1), small).code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
	}

	@ParameterizedTest
	@EnumSource(GrpcStack.class)
	void unaryAndServerStreamingCallsAreChargedOnceAsBefore(GrpcStack stack) {
		GrpcApp app = app(stack);
		Map<String, String> key = Map.of("x-api-key", "calls-" + stack);
		assertThat(app.call(TestGreeter.SAY_HELLO, "one", key).code()).isEqualTo(Status.Code.OK);
		// three messages back, one call charged
		assertThat(app.call(TestGreeter.COUNT, "a", key).messages()).containsExactly("a 1", "a 2", "a 3");
		GrpcApp.Reply refused = app.call(TestGreeter.SAY_HELLO, "two", key);
		assertThat(refused.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.details().getMessage()).startsWith("Rate limit 'calls' of 2 per hour exceeded");
	}

	@org.junit.jupiter.api.Test
	void aRuleKeyedByPrincipalChargesEachMessageToTheUserTheCallWasAuthenticatedAs() {
		try (GrpcApp app = GrpcStack.NETTY.start(RateLimitGrpcTests.SecuredApplication.class,
				Map.of("ratelimit.rules.talk.paths", "/test.Greeter/Chat", "ratelimit.rules.talk.key", "principal",
						"ratelimit.rules.talk.limit", String.valueOf(LIMIT), "ratelimit.rules.talk.window", "1h",
						"ratelimit.rules.talk.algorithm", "sliding-window-log", "ratelimit.rules.talk.charge-per-message",
						"true"))) {
			TestGreeter greeter = app.context().getBean(TestGreeter.class);
			GrpcApp.Reply alice = app.stream(TestGreeter.CHAT, messages(20), basic("alice"));
			assertThat(alice.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
			assertThat(alice.details().getMessage()).startsWith("Rate limit 'talk'");
			assertThat(greeter.messages.get()).isEqualTo(LIMIT);
			// bob's messages, from the same address, are his own budget's
			GrpcApp.Reply bob = app.stream(TestGreeter.CHAT, messages(LIMIT), basic("bob"));
			assertThat(bob.code()).isEqualTo(Status.Code.OK);
			assertThat(greeter.messages.get()).isEqualTo(2 * LIMIT);
		}
	}

	private static Map<String, String> basic(String user) {
		return Map.of("authorization", "Basic " + java.util.Base64.getEncoder()
			.encodeToString((user + ":secret").getBytes(java.nio.charset.StandardCharsets.UTF_8)));
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.rules.bad.methods=GET            | leave out POST, the method of every gRPC call
			ratelimit.rules.bad.concurrency=2          | a call holds its slot of concurrency from its start to its end
			ratelimit.rules.bad.count-statuses=5xx     | count-statuses charges a call by the status it ends with
			ratelimit.rules.bad.cost-from=header:X-Cost | cost-from reads a call's actual cost once it ends
			""")
	void aRuleThatCannotChargeMessagesStopsStartupNamingTheProperty(String property, String reason) {
		this.runner
			.withPropertyValues("ratelimit.rules.bad.paths=/test.Greeter/Chat", "ratelimit.rules.bad.limit=10",
					"ratelimit.rules.bad.window=1m", "ratelimit.rules.bad.charge-per-message=true", property)
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.rules.bad.charge-per-message with value 'true' is invalid")
				.hasMessageContaining(reason));
	}

}

package dev.ratelimit.ai;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.rules.CalendarPeriod;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitCall;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.testsupport.ChatModelServer;
import dev.ratelimit.testsupport.RedisTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * Token budgets on calls to a chat model ({@code ratelimit.ai.rules.*}), through Spring AI's real OpenAI client over
 * HTTP to a local OpenAI-compatible server ({@link ChatModelServer}), with two application instances on one real
 * Redis: together they charge a user's daily budget exactly the tokens the model reported, a stream is settled by the
 * time its last chunk has been received, a refusal reaches the caller with its retry time, and a call the model
 * failed gives its reservation back.
 */
class RateLimitAdvisorTests {

	private static ChatModelServer model;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void start() throws Exception {
		model = new ChatModelServer();
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.data.redis.url", RedisTestServer.shared().url());
		properties.put("ratelimit.key-prefix", "ai-" + UUID.randomUUID().toString().substring(0, 8));
		properties.put("ratelimit.timeout", "5s");
		properties.put("spring.ai.openai.api-key", "test-key");
		properties.put("spring.ai.openai.base-url", model.baseUrl());
		properties.put("spring.ai.openai.max-retries", "0");
		properties.put("spring.ai.openai.chat.model", "gpt-test");
		// a provider's hold never outlasts the test's patience
		properties.put("ratelimit.ai.provider-limits.max-hold", "3s");
		// a user's tokens per day, the user a parameter of the advisor context
		properties.put("ratelimit.ai.rules.daily.limit", "1000000");
		properties.put("ratelimit.ai.rules.daily.period", "day");
		properties.put("ratelimit.ai.rules.daily.key", "param:user");
		first = start(properties);
		second = start(properties);
	}

	static ConfigurableApplicationContext start(Map<String, Object> properties) {
		return new SpringApplicationBuilder(ChatApp.class).web(WebApplicationType.NONE).properties(properties).run();
	}

	@AfterAll
	static void stop() {
		if (first != null) {
			first.close();
		}
		if (second != null) {
			second.close();
		}
		if (model != null) {
			model.close();
		}
	}

	/** Tokens charged to a user's budget today: the rule's limit less what is left of it. */
	static long charged(ConfigurableApplicationContext context, String user) {
		RateLimitRule rule = context.getBean(RateLimitAdvisor.class).getRules().get(0);
		CalendarPeriod.Budget today = rule.calendarBudget(rule.budgetId(user, RateLimitCall.NO_CLIENT), rule.limits(),
				Instant.now());
		assertThat(today).isNotNull();
		long left = context.getBean(RateLimitRuleRegistry.class)
			.limiter(rule)
			.inspect(today.id(), today.limits())
			.get(0)
			.remaining();
		return today.limits().get(0).limit() - left;
	}

	static ChatClient chat(ConfigurableApplicationContext context) {
		return context.getBean(ChatClient.Builder.class).build();
	}

	static String ask(ChatClient client, String user) {
		return client.prompt("Who keeps the counts?").advisors((advisor) -> advisor.param("user", user)).call().content();
	}

	@Test
	void aProvidersRefusalHoldsTheCallsToItsModelOnEveryInstanceUntilItsReset() {
		ChatClient[] clients = { chat(first), chat(second) };
		// as OpenAI refuses a call when the organisation's requests per minute are spent: no retry-after, the reset
		// of the limit at zero, capped by max-hold (3s)
		model.refuseNext(Map.of("x-ratelimit-limit-requests", "5000", "x-ratelimit-remaining-requests", "0",
				"x-ratelimit-reset-requests", "6m0s", "x-ratelimit-limit-tokens", "800000",
				"x-ratelimit-remaining-tokens", "799000", "x-ratelimit-reset-tokens", "75ms"));
		int before = model.calls();
		assertThatThrownBy(() -> askModel(clients[0], "gpt-held")).isNotInstanceOf(RateLimitExceededException.class);
		assertThat(model.calls()).isEqualTo(before + 1);
		for (ChatClient client : clients) {
			RateLimitExceededException held = catchThrowableOfType(RateLimitExceededException.class,
					() -> askModel(client, "gpt-held"));
			assertThat(held).isNotNull();
			assertThat(held.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(3));
			assertThatThrownBy(() -> client.prompt("Stream it")
				.options(ChatOptions.builder().model("gpt-held"))
				.stream()
				.content()
				.blockLast(Duration.ofSeconds(10))).isInstanceOf(RateLimitExceededException.class);
		}
		assertThat(model.calls()).as("no held call reached the model").isEqualTo(before + 1);
		// another model is not held
		assertThat(askModel(clients[1], "gpt-other")).isEqualTo(ChatModelServer.ANSWER);
		// past the hold, calls to the model go through again, from both instances
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptionsInstanceOf(RateLimitExceededException.class)
			.untilAsserted(() -> assertThat(askModel(clients[1], "gpt-held")).isEqualTo(ChatModelServer.ANSWER));
		assertThat(askModel(clients[0], "gpt-held")).isEqualTo(ChatModelServer.ANSWER);
	}

	@Test
	void anAnswerWhoseRateLimitMetadataIsAtZeroHoldsTheModelOnEveryInstanceUntilItsReset() {
		// Spring AI's Anthropic client, the one that fills getRateLimit() (from the anthropic-ratelimit-* headers)
		ChatClient[] clients = { anthropic(first), anthropic(second) };
		// the clients' first calls (their HTTP clients started) before the answer whose reset is 3 seconds away
		for (ChatClient client : clients) {
			assertThat(askModel(client, "claude-warm")).isEqualTo(ChatModelServer.ANSWER);
		}
		int before = model.calls();
		model.headersNext(Map.of("anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining",
				"0", "anthropic-ratelimit-requests-reset", Instant.now().plusSeconds(3).toString()));
		assertThat(askModel(clients[0], "claude-held")).isEqualTo(ChatModelServer.ANSWER);
		for (ChatClient client : clients) {
			RateLimitExceededException held = catchThrowableOfType(RateLimitExceededException.class,
					() -> askModel(client, "claude-held"));
			assertThat(held).isNotNull();
			assertThat(held.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(3));
		}
		assertThat(model.calls()).as("no held call reached the model").isEqualTo(before + 1);
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptionsInstanceOf(RateLimitExceededException.class)
			.untilAsserted(() -> assertThat(askModel(clients[1], "claude-held")).isEqualTo(ChatModelServer.ANSWER));
	}

	/** Spring AI's Anthropic client over HTTP to the local server, with the instance's advisor. */
	static ChatClient anthropic(ConfigurableApplicationContext context) {
		AnthropicChatModel anthropic = AnthropicChatModel.builder()
			.options(AnthropicChatOptions.builder()
				.baseUrl(model.anthropicBaseUrl())
				.apiKey("test-key")
				.model("claude-test")
				.maxTokens(100)
				.build())
			.build();
		return ChatClient.builder(anthropic).defaultAdvisors(context.getBean(RateLimitAdvisor.class)).build();
	}

	static String askModel(ChatClient client, String modelName) {
		return client.prompt("Who keeps the counts?")
			.options(ChatOptions.builder().model(modelName))
			.advisors((advisor) -> advisor.param("user", "provider-" + modelName))
			.call()
			.content();
	}

	@Test
	void twoInstancesChargeAUsersBudgetExactlyTheTokensTheModelReported() throws Exception {
		String user = "ada-" + UUID.randomUUID();
		ChatClient[] clients = { chat(first), chat(second) };
		long before = model.reportedTokens();
		int threads = 8;
		int callsEach = 5;
		CountDownLatch startLine = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<Integer>> answered = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				ChatClient client = clients[t % 2];
				answered.add(executor.submit(() -> {
					startLine.await();
					int answers = 0;
					for (int i = 0; i < callsEach; i++) {
						assertThat(ask(client, user)).isEqualTo(ChatModelServer.ANSWER);
						answers++;
					}
					return answers;
				}));
			}
			startLine.countDown();
			int total = 0;
			for (Future<Integer> each : answered) {
				total += each.get(30, TimeUnit.SECONDS);
			}
			assertThat(total).isEqualTo(threads * callsEach);
		}
		finally {
			executor.shutdownNow();
		}
		long reported = model.reportedTokens() - before;
		assertThat(reported).as("30 + 70 tokens per call").isEqualTo(threads * callsEach * 100L);
		assertThat(charged(first, user)).isEqualTo(reported);
		assertThat(charged(second, user)).isEqualTo(reported);
	}

	@Test
	void aStreamIsSettledWithTheUsageOfItsLastChunk() {
		String user = "grace-" + UUID.randomUUID();
		model.usage(12, 345);
		try {
			List<ChatClientResponse> chunks = chat(second).prompt("Stream it")
				.advisors((advisor) -> advisor.param("user", user))
				.stream()
				.chatClientResponse()
				.collectList()
				.block(Duration.ofSeconds(10));
			assertThat(chunks).isNotEmpty();
			// settled before the stream completed: no wait
			assertThat(charged(first, user)).isEqualTo(12 + 345);
		}
		finally {
			model.usage(30, 70);
		}
	}

	@Test
	void aStreamTheCallerAbandonsIsSettledWithWhatItReceived() {
		String user = "edsger-" + UUID.randomUUID();
		String received = chat(second).prompt("Stream it")
			.advisors((advisor) -> advisor.param("user", user))
			.stream()
			.content()
			.blockFirst(Duration.ofSeconds(10));
		assertThat(received).isEqualTo("Redis ");
		// the prompt's 9 characters (3 tokens) and the 6 received (2), the usage of the last chunk never read
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(charged(first, user)).isEqualTo(5));
	}

	@Test
	void aCallTheModelFailedGivesItsReservationBack() {
		String user = "alan-" + UUID.randomUUID();
		ChatClient client = chat(first);
		model.failNext(1);
		assertThatThrownBy(() -> ask(client, user)).isNotInstanceOf(RateLimitExceededException.class);
		assertThat(charged(first, user)).isZero();
		model.failNext(1);
		Flux<String> stream = client.prompt("Stream it").advisors((advisor) -> advisor.param("user", user)).stream().content();
		assertThatThrownBy(() -> stream.blockLast(Duration.ofSeconds(10))).isNotInstanceOf(RateLimitExceededException.class);
		assertThat(charged(first, user)).isZero();
	}

	@Test
	void aRefusalReachesTheCallerWithItsRetryTime() {
		String user = "barbara-" + UUID.randomUUID();
		ChatClient client = chat(first);
		// 1,000,000 a day: the first call's 100 tokens, then the rest of the day charged by hand
		assertThat(ask(client, user)).isEqualTo(ChatModelServer.ANSWER);
		RateLimitRule rule = first.getBean(RateLimitAdvisor.class).getRules().get(0);
		CalendarPeriod.Budget today = rule.calendarBudget(rule.budgetId(user, RateLimitCall.NO_CLIENT), rule.limits(),
				Instant.now());
		first.getBean(RateLimitRuleRegistry.class).limiter(rule).charge(today.id(), today.limits(), 1_000_000 - 100);
		int calls = model.calls();
		RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class,
				() -> ask(chat(second), user));
		assertThat(refused).isNotNull();
		assertThat(refused.getRule()).isEqualTo("daily");
		assertThat(refused.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofDays(1));
		Flux<String> stream = client.prompt("Stream it").advisors((advisor) -> advisor.param("user", user)).stream().content();
		assertThatThrownBy(() -> stream.blockLast(Duration.ofSeconds(10))).isInstanceOf(RateLimitExceededException.class);
		assertThat(model.calls()).as("no refused call reached the model").isEqualTo(calls);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ChatApp {

	}

}

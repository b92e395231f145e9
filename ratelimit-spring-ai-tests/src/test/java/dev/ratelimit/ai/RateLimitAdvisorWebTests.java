package dev.ratelimit.ai;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.RateLimitFields;
import dev.ratelimit.testsupport.ChatModelServer;
import dev.ratelimit.testsupport.RedisTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A refusal of the chat model's token budget thrown out of a Spring MVC handler is the usual 429, with
 * {@code Retry-After} and the problem detail, through the handler exception resolver of bean methods' refusals; the
 * exchange is the transcript of docs/ai.md.
 */
class RateLimitAdvisorWebTests {

	private static ChatModelServer model;

	private static ConfigurableApplicationContext app;

	@BeforeAll
	static void start() throws Exception {
		model = new ChatModelServer();
		app = new SpringApplicationBuilder(ChatWebApp.class).web(WebApplicationType.SERVLET)
			.properties("server.port=0", "server.address=127.0.0.1",
					"spring.data.redis.url=" + RedisTestServer.shared().url(),
					"ratelimit.key-prefix=ai-web-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout=5s",
					"spring.ai.openai.api-key=test-key", "spring.ai.openai.base-url=" + model.baseUrl(),
					"spring.ai.openai.max-retries=0", "spring.ai.openai.chat.model=gpt-test",
					// 150 tokens a day per user: the first call (100 tokens) goes through, the second finds 50 left
					"ratelimit.ai.rules.daily.limit=150", "ratelimit.ai.rules.daily.period=day",
					"ratelimit.ai.rules.daily.key=param:user", "ratelimit.ai.rules.daily.estimate=60")
			.run();
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
		if (model != null) {
			model.close();
		}
	}

	@Test
	void aRefusalThrownOutOfAHandlerIsA429WithRetryAfter() throws Exception {
		int port = ((WebServerApplicationContext) app).getWebServer().getPort();
		HttpClient http = HttpClient.newHttpClient();
		HttpRequest ask = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask?user=ada")).build();
		HttpResponse<String> answered = http.send(ask, HttpResponse.BodyHandlers.ofString());
		assertThat(answered.statusCode()).isEqualTo(200);
		assertThat(answered.body()).isEqualTo(ChatModelServer.ANSWER);
		HttpResponse<String> refused = http.send(ask, HttpResponse.BodyHandlers.ofString());
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
				(seconds) -> assertThat(Long.parseLong(seconds)).isPositive().isLessThanOrEqualTo(86_400));
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(model.calls()).as("the refused call never reached the model").isEqualTo(1);
		// draft 12 (the default): a token budget's quota unit is tokens
		List<RateLimitFields.Member> policies = RateLimitFields
			.list(refused.headers().firstValue("RateLimit-Policy").orElseThrow());
		assertThat(policies).hasSize(1);
		assertThat(policies.get(0).value()).isEqualTo("daily");
		assertThat(policies.get(0).params()).containsEntry("qu", "tokens").containsEntry("q", 150L);
		String transcript = transcript(answered) + transcript(refused);
		System.out.println(transcript);
		DocumentationTranscripts.assertShows(
				DocumentationTranscripts.text(Path.of("..", "docs", "ai.md"), "RateLimitAdvisorWebTests", null),
				transcript);
	}

	/** The exchange as {@code curl -i} shows it, with the headers the page talks of. */
	private static String transcript(HttpResponse<String> response) {
		StringBuilder text = new StringBuilder("$ curl -i 'localhost:8080/ask?user=ada'\n");
		text.append("HTTP/1.1 ").append(response.statusCode()).append('\n');
		for (String name : List.of("Retry-After", "RateLimit-Policy", "RateLimit", "Content-Type")) {
			response.headers().allValues(name).forEach((value) -> text.append(name).append(": ").append(value).append('\n'));
		}
		return text.append('\n').append(response.body()).append('\n').toString();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@RestController
	static class ChatWebApp {

		private final ChatClient chat;

		ChatWebApp(ChatClient.Builder chat) {
			this.chat = chat.build();
		}

		@GetMapping("/ask")
		String ask(@RequestParam String user) {
			return this.chat.prompt("Who keeps the counts?")
				.advisors((advisor) -> advisor.param("user", user))
				.call()
				.content();
		}

	}

}

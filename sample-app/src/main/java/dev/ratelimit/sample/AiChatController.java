package dev.ratelimit.sample;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A chat endpoint on a real chat model through Spring AI's {@code ChatClient}, under a daily token budget per user
 * ({@code ratelimit.ai.rules.daily-tokens}): the starter's advisor reserves each call's estimate in the user's budget
 * and charges the tokens the model reports; a call the budget refuses never reaches the model, and is answered 429.
 * The model is OpenAI's ({@code spring.ai.openai.api-key}), or any OpenAI-compatible server
 * ({@code spring.ai.openai.base-url}).
 */
@RestController
class AiChatController {

	/** The most tokens an answer may have: what each call reserves of the budget, with its prompt's estimate. */
	static final int MAX_ANSWER_TOKENS = 500;

	private final ChatClient chat;

	AiChatController(ChatClient.Builder chat) {
		this.chat = chat.build();
	}

	/** Asks the model, charging the user's daily budget (the user is the {@code X-User} header). */
	@GetMapping("/chat")
	String chat(@RequestParam("q") String question, @RequestHeader("X-User") String user) {
		String answer = this.chat.prompt(question)
			.options(ChatOptions.builder().maxTokens(MAX_ANSWER_TOKENS))
			.advisors((advisor) -> advisor.param("user", user))
			.call()
			.content();
		return (answer != null) ? answer : "";
	}

}

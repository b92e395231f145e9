package dev.ratelimit.ai;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tokens a rule without {@code estimate} reserves: the prompt's characters / 4, rounded up, and the call's maximum
 * output tokens, or the prompt's estimate again without them.
 */
class TokenEstimateTests {

	/** 9 + 30 characters: 10 tokens. */
	private static final Prompt PROMPT = new Prompt(
			java.util.List.of(new SystemMessage("Be brief."), new UserMessage("Who keeps the counts, and how?")));

	@Test
	void estimatesThePromptFromItsLengthAndTheCompletionFromMaxTokens() {
		ChatClientRequest request = new ChatClientRequest(
				PROMPT.mutate().chatOptions(ChatOptions.builder().maxTokens(200).build()).build(), Map.of());
		assertThat(TokenEstimate.of(request, TokenCount.PROMPT)).isEqualTo(10);
		assertThat(TokenEstimate.of(request, TokenCount.COMPLETION)).isEqualTo(200);
		assertThat(TokenEstimate.of(request, TokenCount.TOTAL)).isEqualTo(210);
		assertThat(TokenEstimate.of(request, TokenCount.REQUESTS)).isEqualTo(1);
	}

	@Test
	void estimatesTheCompletionAsThePromptWithoutMaxTokens() {
		ChatClientRequest request = new ChatClientRequest(PROMPT, Map.of());
		assertThat(TokenEstimate.of(request, TokenCount.COMPLETION)).isEqualTo(10);
		assertThat(TokenEstimate.of(request, TokenCount.TOTAL)).isEqualTo(20);
	}

	@Test
	void roundsATextsTokensUp() {
		assertThat(TokenEstimate.fromLength(0)).isZero();
		assertThat(TokenEstimate.fromLength(1)).isEqualTo(1);
		assertThat(TokenEstimate.fromLength(8)).isEqualTo(2);
		assertThat(TokenEstimate.fromLength(9)).isEqualTo(3);
	}

}

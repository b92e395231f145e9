package dev.ratelimit.ai;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.prompt.ChatOptions;

/**
 * The tokens reserved for a call when its rule gives no {@code estimate}: the prompt's, from its length (one token
 * per four characters, OpenAI's rule of thumb for English text), and the completion's, the call's maximum output
 * tokens option ({@code maxTokens}), or as many as the prompt's when the call sets none.
 */
final class TokenEstimate {

	/** Characters per token, roughly, for English text. */
	static final int CHARACTERS_PER_TOKEN = 4;

	private TokenEstimate() {
	}

	/**
	 * Returns the tokens to reserve for a call.
	 * @param request the call
	 * @param tokens what the rule counts
	 * @return the estimate, from 0
	 */
	static long of(ChatClientRequest request, TokenCount tokens) {
		long prompt = fromLength(promptLength(request));
		ChatOptions options = request.prompt().getOptions();
		Integer maxTokens = (options != null) ? options.getMaxTokens() : null;
		long completion = (maxTokens != null) ? maxTokens : prompt;
		return switch (tokens) {
			case PROMPT -> prompt;
			case COMPLETION -> completion;
			case TOTAL -> prompt + completion;
			case REQUESTS -> 1;
		};
	}

	/**
	 * Returns the tokens of a text, estimated from its length.
	 * @param characters the text's length
	 * @return the tokens, rounded up
	 */
	static long fromLength(long characters) {
		return (characters + CHARACTERS_PER_TOKEN - 1) / CHARACTERS_PER_TOKEN;
	}

	private static long promptLength(ChatClientRequest request) {
		long length = 0;
		for (Message message : request.prompt().getInstructions()) {
			String text = message.getText();
			length += (text != null) ? text.length() : 0;
		}
		return length;
	}

}

package dev.ratelimit.ai;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.metadata.Usage;

/**
 * What a chat rule counts of each call to a model ({@code ratelimit.ai.rules.<name>.tokens}).
 *
 * @since 0.1.0
 */
public enum TokenCount {

	/** The tokens of the prompt and of the completion, as the provider reports them. */
	TOTAL("totalTokens"),

	/** The tokens of the prompt only. */
	PROMPT("promptTokens"),

	/** The tokens of the completion only. */
	COMPLETION("completionTokens"),

	/** One permit per call, whatever its tokens: a limit of requests to the model. */
	REQUESTS(null);

	private final @Nullable String usageProperty;

	TokenCount(@Nullable String usageProperty) {
		this.usageProperty = usageProperty;
	}

	/**
	 * Returns where the actual cost is read, as an expression over the model's answer: what the rule's description
	 * and the startup log show.
	 * @return the expression, {@code null} for {@link #REQUESTS}, whose cost is known before the call
	 */
	@Nullable String expression() {
		return (this.usageProperty != null) ? "#result.metadata.usage." + this.usageProperty : null;
	}

	/**
	 * Returns what a rule of this count counts, as the draft-12 headers' {@code qu} names it.
	 * @return {@code tokens}, or {@code null} for {@link #REQUESTS} (requests are the headers' default unit)
	 */
	@Nullable String unit() {
		return (this.usageProperty != null) ? "tokens" : null;
	}

	/**
	 * Returns the tokens this count reads of a usage the provider reported.
	 * @param usage the usage
	 * @return the tokens, or {@code null} when the usage tells none
	 */
	@Nullable Long of(Usage usage) {
		Integer tokens = switch (this) {
			case TOTAL -> usage.getTotalTokens();
			case PROMPT -> usage.getPromptTokens();
			case COMPLETION -> usage.getCompletionTokens();
			case REQUESTS -> 1;
		};
		return (tokens != null) ? tokens.longValue() : null;
	}

}

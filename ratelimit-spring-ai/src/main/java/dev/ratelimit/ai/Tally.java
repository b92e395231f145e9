package dev.ratelimit.ai;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.metadata.EmptyUsage;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;

/**
 * What a stream has received: the usage its provider reported (the last chunk carries it), and the length of the
 * text, for a stream that ends without one (abandoned by its caller, failed halfway): then its usage is estimated, the
 * prompt's as a call's estimate and the completion's from the text received.
 */
final class Tally {

	private final ChatClientRequest request;

	private @Nullable Usage reported;

	private long characters;

	private boolean any;

	private @Nullable ChatClientResponse last;

	Tally(ChatClientRequest request) {
		this.request = request;
	}

	/**
	 * Returns the usage an answer reports; {@code null} when it reports none (Spring AI's empty usage).
	 * @param response the answer, or a chunk of a stream
	 * @return the usage, or {@code null}
	 */
	static @Nullable Usage usageOf(@Nullable ChatClientResponse response) {
		ChatResponse chatResponse = (response != null) ? response.chatResponse() : null;
		if (chatResponse == null) {
			return null;
		}
		Usage usage = chatResponse.getMetadata().getUsage();
		if (usage instanceof EmptyUsage || usage.getTotalTokens() == null || usage.getTotalTokens() == 0) {
			return null;
		}
		return usage;
	}

	synchronized void add(ChatClientResponse chunk) {
		this.any = true;
		this.last = chunk;
		Usage usage = usageOf(chunk);
		if (usage != null) {
			this.reported = usage;
		}
		ChatResponse chatResponse = chunk.chatResponse();
		if (chatResponse != null) {
			for (Generation generation : chatResponse.getResults()) {
				String text = generation.getOutput().getText();
				this.characters += (text != null) ? text.length() : 0;
			}
		}
	}

	/**
	 * Returns the usage of what the stream received: the reported one, else an estimate; none at all when nothing was
	 * received (the model never answered: nothing was spent).
	 * @return the usage
	 */
	synchronized Usage received() {
		if (this.reported != null) {
			return this.reported;
		}
		if (!this.any) {
			return new DefaultUsage(0, 0);
		}
		long prompt = TokenEstimate.of(this.request, TokenCount.PROMPT);
		return new DefaultUsage(Math.toIntExact(Math.min(prompt, Integer.MAX_VALUE)),
				Math.toIntExact(Math.min(TokenEstimate.fromLength(this.characters), Integer.MAX_VALUE)));
	}

	/**
	 * Returns the last chunk received, whose metadata a provider fills last.
	 * @return the chunk, or {@code null} before the first
	 */
	synchronized @Nullable ChatClientResponse last() {
		return this.last;
	}

}

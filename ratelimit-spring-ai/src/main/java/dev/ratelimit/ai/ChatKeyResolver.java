package dev.ratelimit.ai;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;

/**
 * Finds whose budget a call to a chat model charges, for the rules keyed by {@code bean:<name>}: a bean of this type
 * with that name (a tenant read from the application's own context, say).
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ChatKeyResolver {

	/**
	 * Returns the key of a call.
	 * @param request the call: its prompt, and the advisor context the caller filled
	 * ({@code .advisors(a -> a.param("tenant", id))})
	 * @return the key, or {@code null} when the call has none (the rule's {@code missing-key} decides)
	 */
	@Nullable String resolve(ChatClientRequest request);

}

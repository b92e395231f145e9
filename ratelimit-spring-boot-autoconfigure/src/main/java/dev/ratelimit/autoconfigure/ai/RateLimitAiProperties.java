package dev.ratelimit.autoconfigure.ai;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.autoconfigure.RateLimitProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The chat models' part of the rate limiter's properties ({@code ratelimit.ai.*}), bound beside the common part under
 * the same prefix.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("ratelimit")
public class RateLimitAiProperties {

	private final Ai ai = new Ai();

	public Ai getAi() {
		return this.ai;
	}

	/**
	 * The budgets of calls to chat models.
	 */
	public static class Ai {

		/**
		 * The token budgets of calls to chat models, by name; each applies to every call of a ChatClient built from
		 * Spring Boot's ChatClient.Builder.
		 */
		private Map<String, ChatRule> rules = new LinkedHashMap<>();

		public Map<String, ChatRule> getRules() {
			return this.rules;
		}

		public void setRules(Map<String, ChatRule> rules) {
			this.rules = rules;
		}

	}

	/**
	 * A token budget: the options of a request rule that make sense for a call to a model (limits, algorithm, key,
	 * plans, period and zone, shadow, enforce, block-for), and what it counts.
	 */
	public static class ChatRule extends RateLimitProperties.Rule {

		/**
		 * What the rule counts of each call: total, prompt or completion tokens, as the provider reports them, or
		 * requests.
		 */
		private String tokens = "total";

		/**
		 * Tokens reserved before each call, settled with the provider's usage once it answers; by default the prompt's
		 * length in characters / 4 plus the call's maximum output tokens (or the prompt's estimate again when it sets
		 * none).
		 */
		private @Nullable Long estimate;

		/**
		 * Creates the properties of a rule; its key is the caller's principal unless it says otherwise.
		 */
		public ChatRule() {
			setKey("principal");
		}

		public String getTokens() {
			return this.tokens;
		}

		public void setTokens(String tokens) {
			this.tokens = tokens;
		}

		public @Nullable Long getEstimate() {
			return this.estimate;
		}

		public void setEstimate(@Nullable Long estimate) {
			this.estimate = estimate;
		}

	}

}

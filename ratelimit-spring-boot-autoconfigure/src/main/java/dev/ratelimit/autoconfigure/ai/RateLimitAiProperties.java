package dev.ratelimit.autoconfigure.ai;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.rules.CalendarPeriod;
import dev.ratelimit.rules.MissingKey;

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

		/**
		 * The provider's own limits on each model, learned from its answers.
		 */
		private final ProviderLimits providerLimits = new ProviderLimits();

		public Map<String, ChatRule> getRules() {
			return this.rules;
		}

		public void setRules(Map<String, ChatRule> rules) {
			this.rules = rules;
		}

		public ProviderLimits getProviderLimits() {
			return this.providerLimits;
		}

	}

	/**
	 * The provider's own limits on each model, held on every instance while the provider says it has nothing left.
	 */
	public static class ProviderLimits {

		/**
		 * Whether a provider's 429 (or rate-limit metadata at zero) holds the calls to its model on every instance
		 * until the reset it announces.
		 */
		private boolean enabled = true;

		/**
		 * The longest hold a provider's answer starts, whatever reset it announces.
		 */
		private Duration maxHold = Duration.ofHours(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getMaxHold() {
			return this.maxHold;
		}

		public void setMaxHold(Duration maxHold) {
			this.maxHold = maxHold;
		}

	}

	/**
	 * A token budget: the options of a request rule that make sense for a call to a model (limits, algorithm, key,
	 * plans, period and zone, shadow, enforce, blocks), and what it counts. Its options share their names with those
	 * of {@link RateLimitProperties.Rule}, which the rule is built from.
	 */
	public static class ChatRule extends RateLimitProperties.Charge {

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
		 * Whose budget a call charges: principal, param:name (a value of the advisor context), bean:name (a ChatKeyResolver) or a SpEL expression over the call (#request, #prompt, #context).
		 */
		private String key = "principal";

		/**
		 * What a call without the key's value meets: charged to the budget every such call shares (client-address), refused (reject), or not limited by this rule (skip).
		 */
		private MissingKey missingKey = MissingKey.CLIENT_ADDRESS;

		/**
		 * Key values exempt from the rule: their calls skip it without a Redis call.
		 */
		private List<String> allowKeys = new ArrayList<>();

		/**
		 * How long a key the rule refuses stays refused, on every instance, from the refusal.
		 */
		private @Nullable Duration blockFor;

		/**
		 * How much longer each block that follows within block-for of the end of the previous one lasts (2 doubles it); 1 for blocks of one length.
		 */
		private @Nullable Double blockMultiplier;

		/**
		 * The longest a block lasts, however often a key offends again.
		 */
		private @Nullable Duration blockMax;

		/**
		 * A calendar quota instead of a window: day, week or month, reset at local midnight, on Monday or on the first of the month.
		 */
		private @Nullable CalendarPeriod period;

		/**
		 * Time zone of the period's boundaries.
		 */
		private ZoneId zone = ZoneOffset.UTC;

		/**
		 * Whether the rule only observes, refusing nothing; ratelimit.shadow when not set.
		 */
		private @Nullable Boolean shadow;

		/**
		 * Whether the rule refuses calls over its limits; false makes it soft: decided and charged, never refused.
		 */
		private boolean enforce = true;

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

		public String getKey() {
			return this.key;
		}

		public void setKey(String key) {
			this.key = key;
		}

		public MissingKey getMissingKey() {
			return this.missingKey;
		}

		public void setMissingKey(MissingKey missingKey) {
			this.missingKey = missingKey;
		}

		public List<String> getAllowKeys() {
			return this.allowKeys;
		}

		public void setAllowKeys(List<String> allowKeys) {
			this.allowKeys = allowKeys;
		}

		public @Nullable Duration getBlockFor() {
			return this.blockFor;
		}

		public void setBlockFor(@Nullable Duration blockFor) {
			this.blockFor = blockFor;
		}

		public @Nullable Double getBlockMultiplier() {
			return this.blockMultiplier;
		}

		public void setBlockMultiplier(@Nullable Double blockMultiplier) {
			this.blockMultiplier = blockMultiplier;
		}

		public @Nullable Duration getBlockMax() {
			return this.blockMax;
		}

		public void setBlockMax(@Nullable Duration blockMax) {
			this.blockMax = blockMax;
		}

		public @Nullable CalendarPeriod getPeriod() {
			return this.period;
		}

		public void setPeriod(@Nullable CalendarPeriod period) {
			this.period = period;
		}

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public @Nullable Boolean getShadow() {
			return this.shadow;
		}

		public void setShadow(@Nullable Boolean shadow) {
			this.shadow = shadow;
		}

		public boolean isEnforce() {
			return this.enforce;
		}

		public void setEnforce(boolean enforce) {
			this.enforce = enforce;
		}

	}

}

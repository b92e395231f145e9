package dev.ratelimit.ai;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.BlockPolicy;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.RateLimitCall;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;

/**
 * The provider's own limits on each model, learned from its answers and held on every instance: when the provider
 * says it has nothing left until a reset (a {@code 429}, or rate-limit metadata at zero), the model's budget under the
 * rule {@value #RULE} is blocked until then, capped at {@code max-hold}, as partner budgets block theirs
 * ({@link BlockingRateLimiter#block}); while it is blocked, the rule refuses every call to that model before it is
 * made, with the time left. The rule never refuses otherwise: its limit is the largest a limiter takes.
 */
final class ProviderLimits {

	/** The name of the rule that holds the calls to a model. */
	static final String RULE = "ai-provider-limits";

	/** The model of the calls that name none in their options: they go to the client's default model. */
	static final String DEFAULT_MODEL = "default";

	private static final Log logger = LogFactory.getLog(ProviderLimits.class);

	/** How long the block that a refusal of the rule starts lasts: next to nothing, as it only ever refuses blocked. */
	private static final BlockPolicy BLOCKS = BlockPolicy.of(Duration.ofMillis(1));

	private final RateLimitRule rule;

	private final RateLimitRuleRegistry registry;

	private final Duration maxHold;

	private final Clock clock;

	ProviderLimits(RateLimitRuleRegistry registry, Duration maxHold, Clock clock) {
		this.rule = RateLimitRule
			.builder(RULE, List.of(RateLimit.of(RateLimit.MAX_LIMIT, Duration.ofSeconds(1))), Algorithm.FIXED_WINDOW,
					new RuleKey.Resolver(), "ratelimit.ai.provider-limits")
			.block(BLOCKS)
			.build();
		registry.registerAttached(this.rule);
		this.registry = registry;
		this.maxHold = maxHold;
		this.clock = clock;
	}

	/**
	 * Returns the rule that holds the calls to a model while its provider asked to be left alone.
	 * @return the rule, keyed by the model ({@link #model})
	 */
	RateLimitRule rule() {
		return this.rule;
	}

	/**
	 * Returns the model a call goes to, as its budget is named: the model its options name, else {@value #DEFAULT_MODEL}.
	 * @param request the call
	 * @return the model's name
	 */
	static String model(ChatClientRequest request) {
		ChatOptions options = request.prompt().getOptions();
		String model = (options != null) ? options.getModel() : null;
		return (model != null && !model.isBlank()) ? model : DEFAULT_MODEL;
	}

	/**
	 * Learns from a call that failed: a refusal of the provider's ({@code 429}) holds the model's calls for the wait
	 * it asks for.
	 * @param request the call
	 * @param failure what it failed with
	 */
	void learn(ChatClientRequest request, Throwable failure) {
		Duration wait = ProviderAnswers.waitAskedBy(failure, this.clock.instant());
		if (wait != null) {
			hold(model(request), wait, "a 429");
		}
	}

	/**
	 * Learns from an answer: rate-limit metadata that says no requests or tokens are left holds the model's calls
	 * until their reset.
	 * @param request the call
	 * @param response the answer, or a chunk of a stream
	 */
	void learn(ChatClientRequest request, @Nullable ChatClientResponse response) {
		ChatResponse chatResponse = (response != null) ? response.chatResponse() : null;
		if (chatResponse == null) {
			return;
		}
		Duration wait = ProviderAnswers.waitAskedBy(chatResponse.getMetadata().getRateLimit());
		if (wait != null) {
			hold(model(request), wait, "its rate-limit metadata at zero");
		}
	}

	private void hold(String model, Duration wait, String why) {
		Duration length = wait;
		if (wait.compareTo(this.maxHold) > 0) {
			// a provider (or a proxy in between) that asks for hours would otherwise stop every instance that long
			length = this.maxHold;
		}
		length = (length.compareTo(RateLimit.MIN_WINDOW) < 0) ? RateLimit.MIN_WINDOW : length;
		logger.warn("The provider of chat model '" + model + "' asked for " + wait.toMillis() + " ms without calls ("
				+ why + "); calls to it are held on every instance for " + length.toMillis() + " ms"
				+ ((length == this.maxHold) ? " (ratelimit.ai.provider-limits.max-hold)" : ""));
		try {
			((BlockingRateLimiter) this.registry.limiter(this.rule)).block(this.rule.budgetId(model,
					RateLimitCall.NO_CLIENT), length);
		}
		catch (RuntimeException ex) {
			logger.warn("The provider of chat model '" + model + "' asked for " + length.toMillis()
					+ " ms without calls, but its budget could not be blocked: " + ex.getMessage());
		}
	}

}

package dev.ratelimit.ai;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;
import dev.ratelimit.rules.RuleKey;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * One rule of the advisor: the rule the flow decides, what it counts, its estimate, and its key's expression parsed
 * once. A rule that counts tokens reserves the estimate of each call (its cost, for that call) and reads the actual
 * tokens from the answer ({@code cost-from}); one that counts requests charges one permit per call.
 */
final class ChatRule {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private final RateLimitRule rule;

	private final TokenCount tokens;

	private final @Nullable Long estimate;

	private final @Nullable Expression key;

	/** The most a reservation may be: a call whose estimate is above every limit would never be let through. */
	private final long largestReservation;

	ChatRule(RateLimitRule rule, TokenCount tokens, @Nullable Long estimate) {
		String expression = tokens.expression();
		this.rule = (expression != null) ? rule.toBuilder().costFrom(new ResponseCost.Result(expression)).build()
				: rule;
		this.tokens = tokens;
		if (estimate != null && estimate < 1) {
			throw new InvalidRateLimitRuleException(rule.name(), "estimate", estimate,
					"reserve at least 1 token per call, or leave estimate out to estimate each call from its prompt");
		}
		this.estimate = estimate;
		this.key = (rule.key() instanceof RuleKey.Expression spel) ? parse(rule.name(), spel.expression()) : null;
		this.largestReservation = smallestLimit(this.rule);
	}

	private static Expression parse(String rule, String expression) {
		try {
			return PARSER.parseExpression(expression);
		}
		catch (ParseException ex) {
			throw new InvalidRateLimitRuleException(rule, "key", expression,
					"write a SpEL expression over the call, such as #context['tenant']: "
							+ ex.getMessage());
		}
	}

	private static long smallestLimit(RateLimitRule rule) {
		long smallest = Long.MAX_VALUE;
		for (RateLimit limit : rule.limits()) {
			smallest = Math.min(smallest, limit.limit());
		}
		for (List<RateLimit> plan : rule.plans().values()) {
			for (RateLimit limit : plan) {
				smallest = Math.min(smallest, limit.limit());
			}
		}
		return smallest;
	}

	RateLimitRule rule() {
		return this.rule;
	}

	TokenCount tokens() {
		return this.tokens;
	}

	@Nullable Expression key() {
		return this.key;
	}

	/**
	 * Returns the rule as one call is charged under it: a rule that counts tokens reserves the call's estimate.
	 * @param request the call
	 * @return the rule, its cost the reservation
	 */
	RateLimitRule forCall(ChatClientRequest request) {
		if (this.tokens == TokenCount.REQUESTS) {
			return this.rule;
		}
		long reserved = (this.estimate != null) ? this.estimate : TokenEstimate.of(request, this.tokens);
		return this.rule.toBuilder().cost(Math.max(1, Math.min(reserved, this.largestReservation))).build();
	}

}

package dev.ratelimit.autoconfigure;

import dev.ratelimit.rules.InvalidRateLimitRuleException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup failure caused by an invalid {@link dev.ratelimit.RateLimited} annotation.
 */
class InvalidRateLimitRuleFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRateLimitRuleException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitRuleException cause) {
		String description = "The rate-limit rule " + cause.getRule() + " is invalid: its " + cause.getAttribute()
				+ " '" + cause.getValue() + "' is not accepted: " + cause.getReason() + ".";
		return new FailureAnalysis(description,
				"Change the " + cause.getAttribute() + " of the rule: " + cause.getReason() + ".", cause);
	}

}

package dev.ratelimit;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a limit refuses a call: a {@link RateLimited} method of a Spring bean that names no fallback
 * method. It carries the decision: the rule, the limits that refused the call with their decisions, and how
 * long to wait. Thrown out of a web handler, the starter answers it as a refused request (429, the rate-limit
 * headers and the problem body).
 *
 * @since 0.1.0
 */
public class RateLimitExceededException extends RuntimeException {

	private final String rule;

	private final List<Refusal> refusals;

	/**
	 * Creates an exception.
	 * @param rule the name of the rule that refused the call
	 * @param refusals the limits that refused it, with their decisions; at least one
	 * @throws IllegalArgumentException when {@code refusals} is empty or a decision allowed the call
	 */
	public RateLimitExceededException(String rule, List<Refusal> refusals) {
		super(message(rule, refusals));
		this.rule = rule;
		this.refusals = List.copyOf(refusals);
	}

	private static String message(String rule, List<Refusal> refusals) {
		if (refusals.isEmpty()) {
			throw new IllegalArgumentException("refusals must not be empty");
		}
		for (Refusal refusal : refusals) {
			if (refusal.decision().allowed()) {
				throw new IllegalArgumentException("the decision of " + refusal.policy() + " allowed the call");
			}
		}
		Refusal first = refusals.get(0);
		return "Rate limit '" + first.policy() + "' of rule '" + rule + "' (" + first.limit().limit() + " per "
				+ first.limit().windowLabel() + ") refused the call; retry after " + retryAfter(refusals).toMillis()
				+ " ms";
	}

	/**
	 * Returns the name of the rule that refused the call.
	 * @return the rule's name
	 */
	public String getRule() {
		return this.rule;
	}

	/**
	 * Returns the limits that refused the call, with their decisions.
	 * @return the refusals, never empty
	 */
	public List<Refusal> getRefusals() {
		return this.refusals;
	}

	/**
	 * Returns the limits that refused the call.
	 * @return the limits, in the order of {@link #getRefusals()}
	 */
	public List<RateLimit> getLimits() {
		return this.refusals.stream().map(Refusal::limit).toList();
	}

	/**
	 * Returns the decision of the first limit that refused the call.
	 * @return the decision
	 */
	public RateLimitDecision getDecision() {
		return this.refusals.get(0).decision();
	}

	/**
	 * Returns how long to wait before the call could be allowed: the longest wait among the refusals.
	 * @return the wait, positive
	 */
	public Duration getRetryAfter() {
		return retryAfter(this.refusals);
	}

	private static Duration retryAfter(List<Refusal> refusals) {
		Duration longest = Duration.ZERO;
		for (Refusal refusal : refusals) {
			if (refusal.decision().retryAfter().compareTo(longest) > 0) {
				longest = refusal.decision().retryAfter();
			}
		}
		return longest;
	}

	/**
	 * One limit that refused a call.
	 *
	 * @param policy the limit's name in rate-limit headers: the rule's name, or the name and the window when the
	 * rule has several limits (such as {@code sms-1m})
	 * @param limit the limit
	 * @param decision its decision
	 * @param unit what the limit counts where it is not requests, as the draft-12 headers' {@code qu} names it (such
	 * as {@code tokens}); {@code null} for requests, or when the unit is not known
	 */
	public record Refusal(String policy, RateLimit limit, RateLimitDecision decision, @Nullable String unit) {

		/**
		 * Creates a refusal of a limit whose unit is requests, or not known.
		 * @param policy the limit's name in rate-limit headers
		 * @param limit the limit
		 * @param decision its decision
		 */
		public Refusal(String policy, RateLimit limit, RateLimitDecision decision) {
			this(policy, limit, decision, null);
		}

	}

}

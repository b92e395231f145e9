package dev.ratelimit.rules.flow;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.rules.RateLimitRule;

/**
 * One limit applied to a request, as a policy of the rate-limit headers, and the decision it gave.
 *
 * @param policy the policy name: the rule's name, with the window when the rule has several limits
 * @param limit the limit; for a concurrency, the requests in flight a key may have ({@link RateLimit#limit()}) and
 * the lease of their slots ({@link RateLimit#window()})
 * @param decision the decision
 * @param concurrency whether the limit counts requests in flight ({@code ratelimit.rules.<name>.concurrency}) rather
 * than permits per window: the rate-limit headers, which speak of windows, leave it out; a refusal's
 * {@code Retry-After} and problem detail tell it
 * @param rule the rule that applied it, or {@code null} when it comes from outside the request's rules (a refused
 * bean method's limit)
 * @param partition whose budget it charged: the rule's name and the key's kind and value (the same in every period of
 * a calendar quota), from which the {@code pk} of the draft-12 headers is derived; {@code null} when unknown
 * @param unit what the limit counts, as the draft-12 headers' {@code qu} names it, when its rule is not at hand to
 * tell (a refusal thrown out of a handler: {@code tokens} for a chat model's token budget); {@code null} to derive it
 * from the rule
 * @since 0.1.0
 */
public record AppliedLimit(String policy, RateLimit limit, RateLimitDecision decision, boolean concurrency,
		@Nullable RateLimitRule rule, @Nullable String partition, @Nullable String unit) {

	/**
	 * Creates a limit applied to a request, its unit derived from its rule.
	 * @param policy the policy name
	 * @param limit the limit
	 * @param decision the decision
	 * @param concurrency whether it counts requests in flight
	 * @param rule the rule that applied it, or {@code null}
	 * @param partition whose budget it charged, or {@code null}
	 */
	public AppliedLimit(String policy, RateLimit limit, RateLimitDecision decision, boolean concurrency,
			@Nullable RateLimitRule rule, @Nullable String partition) {
		this(policy, limit, decision, concurrency, rule, partition, null);
	}

	/**
	 * Creates a limit applied to a request, without its partition.
	 * @param policy the policy name
	 * @param limit the limit
	 * @param decision the decision
	 * @param concurrency whether it counts requests in flight
	 * @param rule the rule that applied it, or {@code null}
	 */
	public AppliedLimit(String policy, RateLimit limit, RateLimitDecision decision, boolean concurrency,
			@Nullable RateLimitRule rule) {
		this(policy, limit, decision, concurrency, rule, null, null);
	}

	/**
	 * Creates a limit applied to a request, without its rule.
	 * @param policy the policy name
	 * @param limit the limit
	 * @param decision the decision
	 * @param concurrency whether it counts requests in flight
	 */
	public AppliedLimit(String policy, RateLimit limit, RateLimitDecision decision, boolean concurrency) {
		this(policy, limit, decision, concurrency, null, null, null);
	}

	/**
	 * Creates a limit of permits per window applied to a request.
	 * @param policy the policy name
	 * @param limit the limit
	 * @param decision the decision
	 */
	public AppliedLimit(String policy, RateLimit limit, RateLimitDecision decision) {
		this(policy, limit, decision, false, null, null, null);
	}

}

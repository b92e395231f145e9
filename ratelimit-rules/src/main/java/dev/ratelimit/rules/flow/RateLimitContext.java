package dev.ratelimit.rules.flow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.rules.RateLimitRule;

/**
 * Where the caller of a request stands under the rules applied to it, for its handler: each limit's decision
 * (remaining, reset), and whether a soft rule ({@code ratelimit.rules.<name>.enforce=false}) found it over its limit,
 * so that the handler can answer with less (a smaller page, a cheaper model) instead of being refused. Rules in shadow
 * mode are not told.
 * <p>
 * A handler takes it as an argument (Spring MVC and WebFlux), or reads it from the request attribute (servlet) or
 * exchange attribute (WebFlux) {@link #ATTRIBUTE}:
 * <pre>{@code
 * @GetMapping("/search")
 * List<Hit> search(@RequestParam String q, RateLimitContext limits) {
 *     return limits.exceeded("search-soft") ? index.search(q, 10) : index.search(q, 100);
 * }
 * }</pre>
 * A request no rule applied to gets {@link #EMPTY}.
 *
 * @since 0.1.0
 */
public final class RateLimitContext {

	/** The request or exchange attribute that holds the context of a request the rules let through. */
	public static final String ATTRIBUTE = "dev.ratelimit.rules.flow.RateLimitContext";

	/** The context of a request no rule applied to. */
	public static final RateLimitContext EMPTY = new RateLimitContext(List.of());

	private final List<AppliedLimit> limits;

	private RateLimitContext(List<AppliedLimit> limits) {
		this.limits = limits;
	}

	/**
	 * Returns the context of the limits applied to a request, but those of rules in shadow mode.
	 * @param applied every limit applied to the request, in order
	 * @return the context
	 */
	public static RateLimitContext of(List<AppliedLimit> applied) {
		List<AppliedLimit> told = new ArrayList<>(applied.size());
		for (AppliedLimit limit : applied) {
			RateLimitRule rule = limit.rule();
			if (rule == null || !rule.shadow()) {
				told.add(limit);
			}
		}
		return told.isEmpty() ? EMPTY : new RateLimitContext(List.copyOf(told));
	}

	/**
	 * Returns the context a request or exchange attribute holds.
	 * @param attribute the value of {@link #ATTRIBUTE}, or {@code null}
	 * @return the context, {@link #EMPTY} when there is none
	 */
	public static RateLimitContext from(@Nullable Object attribute) {
		return (attribute instanceof RateLimitContext context) ? context : EMPTY;
	}

	/**
	 * Returns every limit applied to the request, with its decision, in order.
	 * @return the limits
	 */
	public List<AppliedLimit> limits() {
		return this.limits;
	}

	/**
	 * Returns the limits of one rule: one, or one per limit of a rule with several (and its concurrency).
	 * @param rule the rule's name
	 * @return its limits, empty when it did not apply
	 */
	public List<AppliedLimit> limits(String rule) {
		List<AppliedLimit> found = new ArrayList<>(1);
		for (AppliedLimit limit : this.limits) {
			RateLimitRule applied = limit.rule();
			if ((applied != null) ? applied.name().equals(rule) : limit.policy().equals(rule)) {
				found.add(limit);
			}
		}
		return found;
	}

	/**
	 * Returns whether a limit found the request over it: a soft rule's, since the request was let through.
	 * @return {@code true} when one did
	 */
	public boolean exceeded() {
		return this.limits.stream().anyMatch((limit) -> !limit.decision().allowed());
	}

	/**
	 * Returns whether a limit of a rule found the request over it.
	 * @param rule the rule's name
	 * @return {@code true} when one of its limits did
	 */
	public boolean exceeded(String rule) {
		return limits(rule).stream().anyMatch((limit) -> !limit.decision().allowed());
	}

	/**
	 * Returns the permits left under a rule: the least of its limits'.
	 * @param rule the rule's name
	 * @return the permits, empty when the rule did not apply
	 */
	public Optional<Long> remaining(String rule) {
		return limits(rule).stream().map((limit) -> limit.decision().remaining()).min(Long::compare);
	}

	/**
	 * Returns how long until a rule's budget is full again: the longest of its limits'.
	 * @param rule the rule's name
	 * @return the time, empty when the rule did not apply
	 */
	public Optional<Duration> resetAfter(String rule) {
		return limits(rule).stream().map((limit) -> limit.decision().resetAfter()).max(Duration::compareTo);
	}

	/**
	 * Returns the decision of a rule's first limit.
	 * @param rule the rule's name
	 * @return the decision, empty when the rule did not apply
	 */
	public Optional<RateLimitDecision> decision(String rule) {
		return limits(rule).stream().map(AppliedLimit::decision).findFirst();
	}

	@Override
	public String toString() {
		return "RateLimitContext" + this.limits;
	}

}

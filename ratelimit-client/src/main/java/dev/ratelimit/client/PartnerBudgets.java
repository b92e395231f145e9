package dev.ratelimit.client;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.BlockPolicy;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

/**
 * The budgets of the partners this application calls, in the order of {@code ratelimit.clients.*}: a call is
 * charged to the first that covers its URL or gRPC method. The {@link RateLimitClientHttpRequestInterceptor}, the
 * {@link RateLimitExchangeFilterFunction} and the {@link RateLimitClientInterceptor} take their permits from them.
 *
 * @since 0.1.0
 */
public final class PartnerBudgets {

	/** How long the block that a refusal starts lasts: next to nothing, as the budget's refusals tell their wait. */
	private static final BlockPolicy BLOCKS = BlockPolicy.of(Duration.ofMillis(1));

	private final List<PartnerBudget> budgets;

	private PartnerBudgets(List<PartnerBudget> budgets) {
		this.budgets = List.copyOf(budgets);
	}

	/**
	 * Returns the budget of a call.
	 * @param call the call's URL ({@link PartnerUrl#of}) or gRPC method, normalised once
	 * @return the first budget that covers it, or {@code null}
	 */
	@Nullable PartnerBudget find(PartnerCall call) {
		for (PartnerBudget budget : this.budgets) {
			if (budget.covers(call)) {
				return budget;
			}
		}
		return null;
	}

	/**
	 * Returns whether there are no budgets: then no client needs an interceptor.
	 * @return {@code true} without {@code ratelimit.clients.*}
	 */
	public boolean isEmpty() {
		return this.budgets.isEmpty();
	}

	/**
	 * Starts building the budgets.
	 * @param flow decides the calls
	 * @param rules finds each rule's limiter, for the blocks the partners' answers start
	 * @param clock reads the time of {@code Retry-After} dates
	 * @return a builder
	 */
	public static Builder builder(RateLimitFlow flow, RateLimitRuleRegistry rules, Clock clock) {
		return new Builder(flow, rules, clock);
	}

	/** Builds the budgets, one partner at a time. */
	public static final class Builder {

		private final RateLimitFlow flow;

		private final RateLimitRuleRegistry rules;

		private final Clock clock;

		private ClientMetrics metrics = ClientMetrics.NONE;

		private final List<Partner> partners = new ArrayList<>();

		private Builder(RateLimitFlow flow, RateLimitRuleRegistry rules, Clock clock) {
			this.flow = flow;
			this.rules = rules;
			this.clock = clock;
		}

		/**
		 * Counts, in a Micrometer registry, the calls that waited for a permit ({@code ratelimit.client.waits}), those
		 * that gave up ({@code ratelimit.client.given.up}) and the partners' answers that blocked a budget
		 * ({@code ratelimit.client.partner.refusals}), each tagged with the partner's name; nothing is counted without
		 * a registry.
		 * @param registry where the counters are
		 * @return this builder
		 */
		public Builder meterRegistry(MeterRegistry registry) {
			this.metrics = new MicrometerClientMetrics(registry);
			return this;
		}

		/**
		 * Adds a partner.
		 * @param name its name
		 * @param calls the calls its budget covers, each pattern valid
		 * @param rule the rule that decides its calls (its key is the partner's name)
		 * @param maxWait how long a call may wait for a permit
		 * @param learn whether its answers block the budget
		 * @param maxLearnedBlock the longest block its answers start, from 1 ms
		 * @return this builder
		 * @throws dev.ratelimit.rules.InvalidRateLimitRuleException when a rule already has the partner's name
		 */
		public Builder add(String name, PartnerCalls calls, RateLimitRule rule, Duration maxWait, boolean learn,
				Duration maxLearnedBlock) {
			// blocks by hand (the partner's Retry-After) need the rule's limiter to block keys
			RateLimitRule limited = learn ? rule.toBuilder().block(BLOCKS).build() : rule;
			// listed with the other rules: the endpoint reads and resets the budget (and blocks it, when it learns)
			this.rules.registerAttached(limited);
			this.partners.add(new Partner(name, calls.patterns(), limited, maxWait, learn,
					maxLearnedBlock));
			return this;
		}

		/**
		 * Returns the budgets.
		 * @return the budgets, in the order they were added
		 */
		public PartnerBudgets build() {
			return new PartnerBudgets(this.partners.stream()
				.map((partner) -> new PartnerBudget(partner.name(), partner.calls(), partner.rule(), partner.maxWait(),
						partner.learn(), partner.maxLearnedBlock(), this.flow, this.rules.limiter(partner.rule()),
						this.metrics, this.clock))
				.toList());
		}

		/** A partner as it was added, its budget made once every setting of the builder is known. */
		private record Partner(String name, List<CallPattern> calls, RateLimitRule rule, Duration maxWait, boolean learn,
				Duration maxLearnedBlock) {
		}

	}

}

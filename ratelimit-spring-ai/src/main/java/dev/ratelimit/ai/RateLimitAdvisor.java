package dev.ratelimit.ai;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;
import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.CallEnd;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;

/**
 * Limits the calls a Spring AI {@code ChatClient} makes to its model with token budgets that every instance shares
 * ({@code ratelimit.ai.rules.*}), on the same flow as the requests the application serves. Before each call, each
 * rule reserves its estimate of the call's tokens (or one permit, for a rule that counts requests) in its caller's
 * budget; the call is made only when every rule lets it through, else {@link RateLimitExceededException} is thrown
 * from {@code call()}, or errors the {@code Flux} of {@code stream()}. Once the model has answered, each reservation
 * is settled with the tokens the provider reports ({@code Usage}): the difference charged (past the limit if need be:
 * the tokens were spent) or the excess given back. A stream settles at its last chunk, which carries the usage; one the
 * caller abandons settles what it received, estimated from its length; a call that fails before the model answered
 * gives its reservation back.
 * <p>
 * Ordered after Spring AI's tool-calling advisor by default ({@link #DEFAULT_ORDER}), so that each round of a tool loop
 * is reserved and charged with its own usage. The starter adds it to every {@code ChatClient} built from Spring Boot's
 * {@code ChatClient.Builder}; by hand: {@code ChatClient.builder(model).defaultAdvisors(advisor)}.
 *
 * @since 0.1.0
 */
public final class RateLimitAdvisor implements CallAdvisor, StreamAdvisor {

	/**
	 * The advisor's order by default: after Spring AI's tool-calling advisor ({@link ToolCallingAdvisor#DEFAULT_ORDER}),
	 * inside its loop, so that every round's usage is charged.
	 */
	public static final int DEFAULT_ORDER = ToolCallingAdvisor.DEFAULT_ORDER + 100;

	private final RateLimitFlow flow;

	private final Map<String, ChatRule> rules;

	private final Supplier<@Nullable String> principal;

	private final Function<String, ChatKeyResolver> resolvers;

	private final int order;

	private final @Nullable ProviderLimits provider;

	private RateLimitAdvisor(Builder builder) {
		this.flow = builder.flow;
		this.rules = new LinkedHashMap<>(builder.rules);
		this.principal = builder.principal;
		this.resolvers = builder.resolvers;
		this.order = builder.order;
		Duration maxHold = builder.maxHold;
		this.provider = (maxHold != null) ? new ProviderLimits(builder.registry, maxHold, builder.clock) : null;
	}

	/**
	 * Starts building an advisor.
	 * @param flow decides the calls
	 * @param registry lists the advisor's rules with the others (the endpoint, the startup log)
	 * @return a builder
	 */
	public static Builder builder(RateLimitFlow flow, RateLimitRuleRegistry registry) {
		return new Builder(flow, registry);
	}

	@Override
	public String getName() {
		return "ratelimit";
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	/**
	 * Returns the rules the advisor applies, as the flow decides them.
	 * @return the rules, in order
	 */
	public List<RateLimitRule> getRules() {
		return this.rules.values().stream().map(ChatRule::rule).toList();
	}

	/**
	 * Returns whether the advisor holds the calls to a model while its provider asks to be left alone
	 * ({@link Builder#providerLimits}).
	 * @return {@code true} when it learns the provider's limits
	 */
	public boolean holdsProviderLimits() {
		return this.provider != null;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		ChatCall call = call(request, true);
		boolean allowed;
		try {
			allowed = this.flow.apply(call, forCall(request)).join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
		if (!allowed) {
			throw refusal(call);
		}
		ChatClientResponse response;
		try {
			response = chain.nextCall(request);
		}
		catch (RuntimeException ex) {
			// the model did not answer: nothing was spent
			settle(call, ResponseCost.Actual.NOTHING, true);
			if (this.provider != null) {
				this.provider.learn(request, ex);
			}
			throw ex;
		}
		settle(call, actual(Tally.usageOf(response)), true);
		if (this.provider != null) {
			this.provider.learn(request, response);
		}
		return response;
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		return Flux.defer(() -> {
			ChatCall call = call(request, false);
			// the decision may complete on Redis's I/O thread, which every other decision waits on: go on elsewhere
			return Mono.fromFuture(() -> this.flow.apply(call, forCall(request)), true)
				.publishOn(Schedulers.parallel())
				.flatMapMany((allowed) -> allowed ? stream(call, request, chain) : Flux.error(refusal(call)));
		});
	}

	private Flux<ChatClientResponse> stream(ChatCall call, ChatClientRequest request, StreamAdvisorChain chain) {
		Tally tally = new Tally(request);
		return chain.nextStream(request)
			.doOnNext(tally::add)
			.onErrorResume((ex) -> Mono.fromFuture(() -> settle(call, actual(tally.received()), false))
				.then(learnAsync((provider) -> provider.learn(request, ex)))
				.then(Mono.error(ex)))
			.concatWith(Mono.defer(() -> learnAsync((provider) -> provider.learn(request, tally.last()))).then(Mono.empty()))
			.concatWith(Mono.defer(() -> Mono.fromFuture(() -> settle(call, actual(tally.received()), false)))
				.then(Mono.empty()))
			.doOnCancel(() -> settle(call, actual(tally.received()), false));
	}

	/** Learns from the provider's answer away from the stream's thread: a hold is written to Redis. */
	private Mono<Void> learnAsync(java.util.function.Consumer<ProviderLimits> learn) {
		ProviderLimits provider = this.provider;
		if (provider == null) {
			return Mono.empty();
		}
		return Mono.fromRunnable(() -> learn.accept(provider)).subscribeOn(Schedulers.boundedElastic()).then();
	}

	private ChatCall call(ChatClientRequest request, boolean mayBlock) {
		ChatCall call = new ChatCall(request, this.rules, this.principal, this.resolvers, mayBlock);
		// a decision that completes after the stream was cancelled gives back at once what it took
		call.settleLate((after) -> this.flow.end(after, CallEnd.abandoned(), false));
		return call;
	}

	private List<RateLimitRule> forCall(ChatClientRequest request) {
		List<RateLimitRule> rules = new ArrayList<>(this.rules.size() + 1);
		if (this.provider != null) {
			// first: a call held for its model reserves nothing under the others
			rules.add(this.provider.rule());
		}
		for (ChatRule rule : this.rules.values()) {
			rules.add(rule.forCall(request));
		}
		return rules;
	}

	/** The actual cost of each rule for a usage; none (the reservations stand) without one. */
	private ResponseCost.Actual actual(org.springframework.ai.chat.metadata.@Nullable Usage usage) {
		if (usage == null) {
			return ResponseCost.Actual.NONE;
		}
		return (rule) -> {
			ChatRule chatRule = this.rules.get(rule.name());
			return (chatRule != null) ? chatRule.tokens().of(usage) : null;
		};
	}

	private CompletableFuture<Void> settle(ChatCall call, ResponseCost.Actual actual, boolean mayBlock) {
		AfterResponse after = call.takeAfterResponse();
		if (after.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		return this.flow.end(after, CallEnd.completed(200, actual), mayBlock);
	}

	/** What a rule counts, for the {@code qu} of the headers of a refusal thrown out of a web handler. */
	private @Nullable String unit(@Nullable RateLimitRule rule) {
		ChatRule chatRule = (rule != null) ? this.rules.get(rule.name()) : null;
		return (chatRule != null) ? chatRule.tokens().unit() : null;
	}

	private RuntimeException refusal(ChatCall call) {
		RateLimitRejection rejection = call.rejection();
		if (rejection instanceof RateLimitRejection.Limited limited) {
			List<AppliedLimit> violated = limited.violated();
			RateLimitRule rule = violated.get(0).rule();
			return new RateLimitExceededException((rule != null) ? rule.name() : violated.get(0).policy(),
					violated.stream()
						.map((limit) -> new RateLimitExceededException.Refusal(limit.policy(), limit.limit(),
								limit.decision(), unit(limit.rule())))
						.toList());
		}
		if (rejection instanceof RateLimitRejection.Unavailable) {
			return new RateLimiterUnavailableException("No rate-limit decision could be reached for a call to a chat "
					+ "model, and ratelimit.failure-mode is fail-closed: the model was not called", null);
		}
		if (rejection instanceof RateLimitRejection.MissingKey missing) {
			return new IllegalArgumentException("A call to a chat model has no value for the key of rate-limit rule '"
					+ missing.rule().name() + "' (" + missing.rule().key().spelling() + "), whose missing-key is reject");
		}
		return new IllegalStateException("A call to a chat model was refused: " + rejection);
	}

	/** Builds the advisor, one rule at a time. */
	public static final class Builder {

		private final RateLimitFlow flow;

		private final RateLimitRuleRegistry registry;

		private final Map<String, ChatRule> rules = new LinkedHashMap<>();

		private Supplier<@Nullable String> principal = () -> null;

		private Function<String, ChatKeyResolver> resolvers = (name) -> {
			throw new IllegalStateException("No ChatKeyResolver named '" + name + "'");
		};

		private int order = DEFAULT_ORDER;

		private @Nullable Duration maxHold;

		private Clock clock = Clock.systemUTC();

		private Builder(RateLimitFlow flow, RateLimitRuleRegistry registry) {
			this.flow = flow;
			this.registry = registry;
		}

		/**
		 * Adds a rule, and lists it with the other rules.
		 * @param rule the rule: its limits, algorithm, key, plans, calendar period, shadow, enforce and block
		 * @param tokens what it counts
		 * @param estimate the tokens reserved before each call, from 1; {@code null} to estimate each call from its
		 * prompt's length and its maximum output tokens option
		 * @return this builder
		 * @throws dev.ratelimit.rules.InvalidRateLimitRuleException naming {@code estimate} or {@code key} when
		 * invalid, or the rule's name when a rule already has it
		 */
		public Builder rule(RateLimitRule rule, TokenCount tokens, @Nullable Long estimate) {
			ChatRule chatRule = new ChatRule(rule, tokens, estimate);
			this.registry.registerAttached(chatRule.rule());
			this.rules.put(rule.name(), chatRule);
			return this;
		}

		/**
		 * Sets where the rules keyed by {@code principal} read the caller's name; by default nowhere (the rule's
		 * {@code missing-key} decides).
		 * @param principal supplies the current principal's name, or {@code null}
		 * @return this builder
		 */
		public Builder principal(Supplier<@Nullable String> principal) {
			this.principal = principal;
			return this;
		}

		/**
		 * Sets where the rules keyed by {@code bean:<name>} find their resolver.
		 * @param resolvers the resolver of each name
		 * @return this builder
		 */
		public Builder keyResolvers(Function<String, ChatKeyResolver> resolvers) {
			this.resolvers = resolvers;
			return this;
		}

		/**
		 * Sets the advisor's order among the {@code ChatClient}'s advisors.
		 * @param order the order, {@link #DEFAULT_ORDER} by default
		 * @return this builder
		 */
		public Builder order(int order) {
			this.order = order;
			return this;
		}

		/**
		 * Holds the calls to a model on every instance while its provider says it has nothing left until a reset: a
		 * call that fails with the provider's {@code 429} ({@code retry-after-ms}, {@code retry-after}, or the
		 * {@code x-ratelimit-reset-*} of the limits at zero), or an answer whose rate-limit metadata says no requests
		 * or tokens are left, blocks the model's budget until then; a held call is refused before it is made, with
		 * {@link RateLimitExceededException} and the time left. Off by default.
		 * @param maxHold the longest hold a provider's answer starts, from 1 ms
		 * @return this builder
		 * @throws IllegalArgumentException when {@code maxHold} is shorter than 1 ms or longer than
		 * {@link dev.ratelimit.RateLimit#MAX_WINDOW}
		 */
		public Builder providerLimits(Duration maxHold) {
			if (maxHold.compareTo(dev.ratelimit.RateLimit.MIN_WINDOW) < 0
					|| maxHold.compareTo(dev.ratelimit.RateLimit.MAX_WINDOW) > 0) {
				throw new IllegalArgumentException("The longest hold of a provider's limits must be from 1 ms to "
						+ dev.ratelimit.RateLimit.MAX_WINDOW.toDays() + " days, but was " + maxHold);
			}
			this.maxHold = maxHold;
			return this;
		}

		/**
		 * Sets the clock that reads the time of a provider's {@code retry-after} date; the system's by default.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder clock(Clock clock) {
			this.clock = clock;
			return this;
		}

		/**
		 * Returns the advisor; one without rules or provider limits lets every call through untouched.
		 * @return the advisor
		 */
		public RateLimitAdvisor build() {
			return new RateLimitAdvisor(this);
		}

	}

}

package dev.ratelimit.web;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.RateLimiters.Call;
import dev.ratelimit.RateLimiters;
import dev.ratelimit.web.RateLimitObserver.Outcome;
import dev.ratelimit.web.internal.AddressLists;
import dev.ratelimit.web.internal.StatusCharge;

/**
 * Takes the decisions of the rules that apply to a request, whichever web stack it came through, and
 * applies the failure mode, in one place, when a decision cannot be reached: {@code fail-open} lets the
 * rule pass, {@code fail-closed} refuses the request (503), and {@code local} decides in this instance's
 * memory. A request passes only if every rule allows it; the first rule that refuses it ends the check
 * (rules after it are not charged). Shadow rules are decided and counted, never refuse. Every decision
 * is reported to the observer; nothing here fails a request on its own account.
 */
public final class RateLimitEnforcer {

	/** The budget of a request the rule exempts (its key value, or its plan): it skips the rule. */
	private static final Budget EXEMPT = new Budget("", List.of(), null, List.of());

	/** What a decision reports to when its observer failed to start it. */
	private static final RateLimitObserver.Decision UNOBSERVED = (outcome, nanos) -> {
	};

	private final RateLimitRules rules;

	private final RateLimitPlans plans;

	private final Clock clock;

	private final FailureMode failureMode;

	private final @Nullable RateLimiter local;

	private final RateLimitObserver observer;

	private final EnforcerLogs logs;

	/**
	 * Creates an enforcer.
	 * @param rules the rules and their limiters
	 * @param failureMode what a request meets when a decision cannot be reached
	 * @param local the in-memory limiter of the {@code local} failure mode, or {@code null} in the others
	 * @param observer learns of every decision, for metrics
	 */
	public RateLimitEnforcer(RateLimitRules rules, FailureMode failureMode, @Nullable RateLimiter local,
			RateLimitObserver observer) {
		this(rules, failureMode, local, observer, RateLimitPlans.NONE);
	}

	/**
	 * Creates an enforcer for rules with plans.
	 * @param rules the rules and their limiters
	 * @param failureMode what a request meets when a decision cannot be reached
	 * @param local the in-memory limiter of the {@code local} failure mode, or {@code null} in the others
	 * @param observer learns of every decision, for metrics
	 * @param plans finds the plan of a key under a rule whose plans a resolver bean names
	 */
	public RateLimitEnforcer(RateLimitRules rules, FailureMode failureMode, @Nullable RateLimiter local,
			RateLimitObserver observer, RateLimitPlans plans) {
		this(rules, failureMode, local, observer, plans, Clock.systemUTC());
	}

	/**
	 * Creates an enforcer for rules with plans and calendar quotas.
	 * @param rules the rules and their limiters
	 * @param failureMode what a request meets when a decision cannot be reached
	 * @param local the in-memory limiter of the {@code local} failure mode, or {@code null} in the others
	 * @param observer learns of every decision, for metrics
	 * @param plans finds the plan of a key under a rule whose plans a resolver bean names
	 * @param clock tells which period of a calendar quota a request falls in
	 */
	public RateLimitEnforcer(RateLimitRules rules, FailureMode failureMode, @Nullable RateLimiter local,
			RateLimitObserver observer, RateLimitPlans plans, Clock clock) {
		this.clock = clock;
		this.plans = plans;
		this.rules = rules;
		this.failureMode = failureMode;
		this.local = local;
		this.observer = observer;
		this.logs = new EnforcerLogs(failureMode);
	}

	/**
	 * Decides a request under the rules that apply to it, charging each rule's budget, or none when one
	 * rule refuses it: several rules are decided together, all or nothing in one Redis call, when their
	 * limiters can ({@link RateLimiters#canDecideTogether}), else one after the other, the first
	 * refusal ending the check.
	 * @param request describes the request for debug logs, such as {@code GET /api/orders}
	 * @param applicable the rules that apply, in order
	 * @param keys reads the request's keys
	 * @return the verdict
	 */
	public RateLimitVerdict enforce(Supplier<String> request, List<RateLimitRule> applicable, RequestKeys keys) {
		return enforce(request, applicable, keys, false).join();
	}

	/**
	 * Decides a request as {@link #enforce} does, without holding the caller's thread while Redis answers:
	 * for reactive web stacks, whose threads must never block.
	 * @param request describes the request for debug logs, such as {@code GET /api/orders}
	 * @param applicable the rules that apply, in order
	 * @param keys reads the request's keys; it must not block
	 * @return the verdict; never completed exceptionally, since every failure meets the failure mode
	 */
	public CompletableFuture<RateLimitVerdict> enforceAsync(Supplier<String> request, List<RateLimitRule> applicable,
			RequestKeys keys) {
		return enforce(request, applicable, keys, true);
	}

	/**
	 * One path for both: synchronously every stage is complete when it returns.
	 */
	private CompletableFuture<RateLimitVerdict> enforce(Supplier<String> request, List<RateLimitRule> applicable,
			RequestKeys keys, boolean async) {
		// the request's decisions belong to what the caller's thread has current now (its server observation)
		RateLimitObserver.Request observing = begin();
		if (applicable.size() > 1 && decidesTogether(applicable)) {
			return enforceTogether(request, applicable, keys, async, observing);
		}
		return enforceInTurn(request, applicable, keys, async, 0, new ArrayList<>(applicable.size()), new ArrayList<>(0),
				observing);
	}

	/**
	 * Decides the rules from {@code from} on one after the other; the first refusal ends the check. A rule that
	 * counts responses by status is charged like any other, its charge kept in {@code counted} to be settled
	 * after the response, or given back at once when the request is refused.
	 */
	private CompletableFuture<RateLimitVerdict> enforceInTurn(Supplier<String> request,
			List<RateLimitRule> applicable, RequestKeys keys, boolean async, int from, List<AppliedLimit> applied,
			List<StatusCharge> counted, RateLimitObserver.Request observing) {
		for (int index = from; index < applicable.size(); index++) {
			RateLimitRule rule = applicable.get(index);
			Budget budget = budget(rule, keys);
			if (budget == EXEMPT) {
				continue;
			}
			RateLimitObserver.Decision observed = start(observing, rule);
			long started = System.nanoTime();
			if (budget == null) {
				end(observed, Outcome.MISSING_KEY, System.nanoTime() - started);
				if (rule.missingKey() == MissingKey.SKIP) {
					continue;
				}
				return refused(new RateLimitVerdict(applied, List.of(), false, rule), counted, async);
			}
			int next = index + 1;
			return around(observed, () -> decide(rule, budget, async)).handle((decisions, failure) -> {
				List<RateLimitDecision> taken = decisions;
				RateLimiter decidedBy = this.rules.limiter(rule);
				String decidedKey = budget.id();
				if (failure != null) {
					taken = onFailure(rule, budget, unwrap(failure));
					if (taken == null) {
						end(observed, Outcome.ERROR, System.nanoTime() - started);
						// a rule in shadow mode never refuses, not even with 503
						return (this.failureMode == FailureMode.FAIL_CLOSED && !rule.shadow())
								? new RateLimitVerdict(applied, List.of(), true, null) : null;
					}
					decidedBy = this.local;
					decidedKey = RateLimitKeys.local(rule.algorithm(), budget.id());
				}
				RateLimitVerdict refused = accept(request, rule, budget, taken, observed, System.nanoTime() - started,
						applied);
				if (refused == null && rule.countStatuses() != null && decidedBy != null
						&& taken.stream().allMatch(RateLimitDecision::allowed)) {
					counted.add(new StatusCharge(rule, decidedBy, decidedKey, budget.charged(), rule.cost()));
				}
				return refused;
			})
				.thenCompose((verdict) -> (verdict != null) ? refused(verdict, counted, async)
						: enforceInTurn(request, applicable, keys, async, next, applied, counted, observing));
		}
		return CompletableFuture
			.completedFuture(new RateLimitVerdict(applied, List.of(), false, null, List.copyOf(counted)));
	}

	/**
	 * Returns a verdict that refuses the request, once the charges taken for it under rules that count
	 * responses by status are given back: a request that never reached its handler has no status to count.
	 */
	private CompletableFuture<RateLimitVerdict> refused(RateLimitVerdict verdict, List<StatusCharge> counted,
			boolean async) {
		if (counted.isEmpty()) {
			return CompletableFuture.completedFuture(verdict);
		}
		return refund(counted, async).thenApply((done) -> verdict);
	}

	private CompletableFuture<List<RateLimitDecision>> decide(RateLimitRule rule, Budget budget, boolean async) {
		// a rule that counts responses by status is charged now too, so that concurrent requests can never take
		// more than its budget, and gives the permits back after a response whose status it does not count
		RateLimiter limiter = this.rules.limiter(rule);
		try {
			return async ? limiter.tryAcquireAsync(budget.id(), budget.charged(), rule.cost())
					: CompletableFuture.completedFuture(limiter.tryAcquire(budget.id(), budget.charged(), rule.cost()));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static RuntimeException unwrap(Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		if (cause instanceof Error error) {
			throw error;
		}
		return (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
	}

	private boolean decidesTogether(List<RateLimitRule> applicable) {
		List<RateLimiter> limiters = new ArrayList<>(applicable.size());
		for (RateLimitRule rule : applicable) {
			if (rule.shadow() || rule.countStatuses() != null || rule.block() != null) {
				// a shadow rule's refusal must not keep the others from being charged; checks and blocks have
				// scripts of their own
				return false;
			}
			limiters.add(this.rules.limiter(rule));
		}
		return RateLimiters.canDecideTogether(limiters);
	}

	/**
	 * Decides rules all or nothing in one Redis call: when one refuses, none is charged.
	 */
	private CompletableFuture<RateLimitVerdict> enforceTogether(Supplier<String> request,
			List<RateLimitRule> applicable, RequestKeys keys, boolean async, RateLimitObserver.Request observing) {
		List<RateLimitRule> included = new ArrayList<>(applicable.size());
		List<Budget> budgets = new ArrayList<>(applicable.size());
		List<Call> calls = new ArrayList<>(applicable.size());
		for (RateLimitRule rule : applicable) {
			Budget budget = budget(rule, keys);
			if (budget == EXEMPT) {
				continue;
			}
			if (budget == null) {
				end(start(observing, rule), Outcome.MISSING_KEY, 0);
				if (rule.missingKey() == MissingKey.SKIP) {
					continue;
				}
				return CompletableFuture.completedFuture(new RateLimitVerdict(List.of(), List.of(), false, rule));
			}
			included.add(rule);
			budgets.add(budget);
			calls.add(new Call(this.rules.limiter(rule), budget.id(), budget.charged(), rule.cost()));
		}
		List<RateLimitObserver.Decision> observed = included.stream().map((rule) -> start(observing, rule)).toList();
		long started = System.nanoTime();
		CompletableFuture<List<List<RateLimitDecision>>> decided;
		try {
			decided = calls.isEmpty() ? CompletableFuture.completedFuture(List.of())
					: async ? RateLimiters.tryAcquireTogetherAsync(calls)
							: CompletableFuture.completedFuture(RateLimiters.tryAcquireTogether(calls));
		}
		catch (RuntimeException ex) {
			decided = CompletableFuture.failedFuture(ex);
		}
		return decided.handle((answers, failure) -> verdict(request, included, budgets, observed, answers,
				(failure != null) ? unwrap(failure) : null, System.nanoTime() - started));
	}

	private RateLimitVerdict verdict(Supplier<String> request, List<RateLimitRule> included, List<Budget> budgets,
			List<RateLimitObserver.Decision> observed, @Nullable List<List<RateLimitDecision>> answers,
			@Nullable RuntimeException failure, long nanos) {
		List<AppliedLimit> applied = new ArrayList<>(included.size());
		for (int i = 0; i < included.size(); i++) {
			RateLimitRule rule = included.get(i);
			List<RateLimitDecision> decisions;
			if (failure != null || answers == null) {
				decisions = onFailure(rule, budgets.get(i), (i == 0) ? failure : null);
				if (decisions == null) {
					end(observed.get(i), Outcome.ERROR, nanos);
					if (this.failureMode == FailureMode.FAIL_CLOSED) {
						endUnreached(observed, i + 1, nanos);
						return new RateLimitVerdict(applied, List.of(), true, null);
					}
					continue;
				}
			}
			else if (i < answers.size()) {
				decisions = answers.get(i);
			}
			else {
				end(observed.get(i), Outcome.NOT_REACHED, nanos);
				continue;
			}
			RateLimitVerdict refused = accept(request, rule, budgets.get(i), decisions, observed.get(i), nanos,
					applied);
			if (refused != null) {
				endUnreached(observed, i + 1, nanos);
				return refused;
			}
		}
		return new RateLimitVerdict(applied, List.of(), false, null);
	}

	private void endUnreached(List<RateLimitObserver.Decision> observed, int from, long nanos) {
		for (int i = from; i < observed.size(); i++) {
			end(observed.get(i), Outcome.NOT_REACHED, nanos);
		}
	}

	/**
	 * Records a rule's decisions among the limits applied to the request.
	 * @return the verdict refusing the request when the rule refused it (shadow rules never do), else
	 * {@code null}
	 */
	private @Nullable RateLimitVerdict accept(Supplier<String> request, RateLimitRule rule, Budget budget,
			List<RateLimitDecision> decisions, RateLimitObserver.Decision observed, long nanos,
			List<AppliedLimit> applied) {
		List<AppliedLimit> violated = new ArrayList<>(0);
		for (int i = 0; i < decisions.size(); i++) {
			RateLimitDecision decision = budget.capped(decisions.get(i));
			if (rule.countStatuses() != null && decision.allowed()) {
				// the headers tell the budget as the request found it: its own charge is settled by its status
				decision = RateLimitDecision.allowed(decision.limit(),
						Math.min(decision.remaining() + rule.cost(), decision.limit()), decision.resetAfter());
			}
			AppliedLimit limit = new AppliedLimit(rule.policyName(i, budget.limits()), budget.limits().get(i), decision);
			applied.add(limit);
			if (!limit.decision().allowed()) {
				violated.add(limit);
			}
		}
		if (violated.isEmpty()) {
			end(observed, Outcome.ALLOWED, nanos);
			return null;
		}
		if (rule.shadow()) {
			end(observed, Outcome.SHADOW_REJECTED, nanos);
			this.logs.shadowRejection(rule, budget.id());
			return null;
		}
		end(observed, Outcome.REJECTED, nanos);
		this.logs.rejected(request, rule, budget.id());
		return new RateLimitVerdict(applied, violated, false, null);
	}

	/**
	 * Applies the failure mode to a rule whose decision could not be reached.
	 * @return the decisions taken instead, or {@code null} when the rule takes none: it passes, or in
	 * {@code fail-closed} it refuses the request
	 */
	private @Nullable List<RateLimitDecision> onFailure(RateLimitRule rule, Budget budget,
			@Nullable RuntimeException cause) {
		if (cause != null && !(cause instanceof RateLimiterUnavailableException)) {
			this.logs.unexpected(cause);
		}
		String key = RateLimitKeys.local(rule.algorithm(), budget.id());
		return switch (this.failureMode) {
			case LOCAL -> (this.local == null) ? null : this.local.tryAcquire(key, budget.charged(), rule.cost());
			case FAIL_OPEN, FAIL_CLOSED -> null;
		};
	}

	/**
	 * Settles, after a response, the charges a request took under rules that count responses by status
	 * ({@code count-statuses}): those whose rule counts the final status are kept, the others given back. A
	 * request the client abandoned keeps every charge: do not settle it. Failures are logged, never thrown.
	 * @param charges the charges of the request's verdicts ({@link RateLimitVerdict#counted()})
	 * @param status the final status of the response
	 */
	public void settle(List<StatusCharge> charges, int status) {
		refund(charges.stream().filter((charge) -> !charge.counts(status)).toList(), false).join();
	}

	/**
	 * Settles charges as {@link #settle} does, without holding the caller's thread while Redis answers.
	 * @param charges the charges of the request's verdicts
	 * @param status the final status of the response
	 * @return completes when every refund is answered; never exceptionally
	 */
	public CompletableFuture<Void> settleAsync(List<StatusCharge> charges, int status) {
		return refund(charges.stream().filter((charge) -> !charge.counts(status)).toList(), true);
	}

	private CompletableFuture<Void> refund(List<StatusCharge> charges, boolean async) {
		CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
		for (StatusCharge charge : charges) {
			CompletableFuture<Void> refunded;
			try {
				if (async) {
					refunded = charge.limiter().refundAsync(charge.key(), charge.limits(), charge.permits());
				}
				else {
					charge.limiter().refund(charge.key(), charge.limits(), charge.permits());
					refunded = CompletableFuture.completedFuture(null);
				}
			}
			catch (RuntimeException ex) {
				refunded = CompletableFuture.failedFuture(ex);
			}
			all = all.thenCombine(refunded.handle((done, failure) -> {
				if (failure != null && !(unwrap(failure) instanceof RateLimiterUnavailableException)) {
					this.logs.unexpected(unwrap(failure));
				}
				// Redis down: the permits stay taken, which errs on the side of the limit
				return null;
			}), (first, second) -> null);
		}
		return all;
	}

	/**
	 * Returns whether deciding a request under a rule would ask the rule's plan resolver (a possibly
	 * blocking call), so that a reactive web stack can {@link #lookUpPlan look the plan up} away from its
	 * event loop first.
	 * @param rule the rule
	 * @param keyValue the request's key value, or {@code null}
	 * @return {@code true} when the rule's plan comes from a resolver bean that has not answered for this
	 * key lately
	 */
	public boolean needsPlanLookUp(RateLimitRule rule, @Nullable String keyValue) {
		return rule.plan() instanceof PlanSource.Bean && keyValue != null && !keyValue.isBlank()
				&& !this.plans.isRemembered(rule, keyValue);
	}

	/**
	 * Asks the rule's plan resolver for a key's plan, and remembers the answer for the decision.
	 * @param rule the rule
	 * @param keyValue the request's key value
	 */
	public void lookUpPlan(RateLimitRule rule, String keyValue) {
		this.plans.plan(rule, keyValue);
	}

	/**
	 * Returns what the allow and deny lists say of a request's client address: denied requests are refused
	 * with 403 before any rule, allowed ones skip every rule.
	 * @param clientAddress the request's client address
	 * @return the screening
	 */
	public AddressLists.Screening screen(String clientAddress) {
		return this.rules.addressLists().screen(clientAddress);
	}

	/**
	 * Returns whether any client address is allowed or denied, so that a web stack resolves the client
	 * address of every request only then.
	 * @return {@code true} when the allow or the deny list is not empty
	 */
	public boolean screensAddresses() {
		return !this.rules.addressLists().isEmpty();
	}

	/**
	 * Returns the budget a request charges under a rule. A request without the key's value is charged
	 * under its client address, or (as the rule says) skips the rule or is refused: then {@code null}.
	 * One whose key cannot be read (a key resolver that throws, a query string the server cannot parse)
	 * is charged under its client address whatever the rule says, so that no request goes unlimited
	 * for it. A key value the rule exempts ({@code allow-keys}), or whose plan is {@code unlimited},
	 * returns {@link #EXEMPT}. Under a rule with plans, the budget has the limits of the request's plan.
	 */
	private @Nullable Budget budget(RateLimitRule rule, RequestKeys keys) {
		String value;
		try {
			value = keys.keyValue(rule);
		}
		catch (RuntimeException ex) {
			this.logs.unreadableKey(rule, ex);
			return budget(rule, rule.budgetId(null, keys.clientAddress()), rule.limits());
		}
		if (rule.exempts(value)) {
			return EXEMPT;
		}
		if ((value == null || value.isBlank()) && rule.missingKey() != MissingKey.CLIENT_ADDRESS) {
			return null;
		}
		List<RateLimit> limits = rule.limits();
		if (!rule.plans().isEmpty()) {
			String plan = plan(rule, value, keys);
			if (RateLimitPlanResolver.UNLIMITED.equals(plan)) {
				return EXEMPT;
			}
			limits = rule.limitsOf(plan);
		}
		return budget(rule, rule.budgetId(value, keys.clientAddress()), limits);
	}

	/** A calendar quota's budget names its period; a rolling window's is the rule's and the key's. */
	private Budget budget(RateLimitRule rule, String id, List<RateLimit> limits) {
		RateLimitRule.CalendarBudget quota = rule.calendarBudget(id, limits, this.clock.instant());
		if (quota == null) {
			return new Budget(id, limits, null, limits);
		}
		// the limiter counts in a window that ends with the period (rounded up to the second, so that a list of
		// limits is prepared once a second, not per call), so that its keys expire then; the headers tell the
		// period's own length
		Duration left = Duration.ofSeconds(Math.max(1, (quota.remaining().toMillis() + 999) / 1000));
		List<RateLimit> untilPeriodEnd = quota.limits().stream()
			.map((limit) -> new RateLimit(limit.limit(), left, limit.burst()))
			.toList();
		return new Budget(quota.id(), quota.limits(), quota.remaining(), untilPeriodEnd);
	}

	/**
	 * Returns the plan of a request under a rule with plans: from a header, on a request that came through a
	 * trusted proxy and naming a plan the rule configures, or from the plan resolver (cached); {@code null} for
	 * the rule's own limits. A header from anyone else, or naming another plan ({@code unlimited} among them),
	 * is not believed: whoever sends it gets the rule's own limits.
	 */
	private @Nullable String plan(RateLimitRule rule, @Nullable String keyValue, RequestKeys keys) {
		if (rule.plan() instanceof PlanSource.Header header) {
			if (!keys.fromTrustedProxy()) {
				return null;
			}
			String named = keys.header(header.name());
			return (named != null && rule.plans().containsKey(named)) ? named : null;
		}
		return (keyValue == null || keyValue.isBlank()) ? null : this.plans.plan(rule, keyValue);
	}

	private RateLimitObserver.Request begin() {
		try {
			return this.observer.begin();
		}
		catch (RuntimeException ex) {
			// metrics and traces must never fail a request
			this.logs.unexpected(ex);
			return (rule) -> UNOBSERVED;
		}
	}

	/** Sends a rule's Redis call as its observer wants it sent; an observer that fails sends it plainly. */
	private <T> CompletableFuture<T> around(RateLimitObserver.Decision observed, Supplier<CompletableFuture<T>> send) {
		boolean[] sent = new boolean[1];
		try {
			return observed.around(() -> {
				sent[0] = true;
				return send.get();
			});
		}
		catch (RuntimeException ex) {
			if (sent[0]) {
				throw ex;
			}
			this.logs.unexpected(ex);
			return send.get();
		}
	}

	private RateLimitObserver.Decision start(RateLimitObserver.Request observing, RateLimitRule rule) {
		try {
			return observing.start(rule);
		}
		catch (RuntimeException ex) {
			// metrics and traces must never fail a request
			this.logs.unexpected(ex);
			return UNOBSERVED;
		}
	}

	private void end(RateLimitObserver.Decision decision, Outcome outcome, long nanos) {
		try {
			decision.end(outcome, nanos);
		}
		catch (RuntimeException ex) {
			this.logs.unexpected(ex);
		}
	}

	/**
	 * The budget a request charges under a rule: its id, the limits of its plan (as the headers announce them),
	 * for a calendar quota how long its period has still to run (no refusal lasts longer: the next period has a
	 * budget of its own), and the limits the limiter is asked under: the plan's, or for a calendar quota a
	 * window that ends with the period.
	 */
	private record Budget(String id, List<RateLimit> limits, @Nullable Duration periodLeft, List<RateLimit> charged) {

		RateLimitDecision capped(RateLimitDecision decision) {
			if (this.periodLeft == null) {
				return decision;
			}
			Duration resetAfter = min(decision.resetAfter(), this.periodLeft);
			return decision.allowed() ? RateLimitDecision.allowed(decision.limit(), decision.remaining(), resetAfter)
					: RateLimitDecision.rejected(decision.limit(), decision.remaining(),
							min(decision.retryAfter(), this.periodLeft), resetAfter);
		}

		private static Duration min(Duration a, Duration b) {
			return (a.compareTo(b) <= 0) ? a : b;
		}

	}

	/**
	 * Reads the keys of one request, as its web stack holds them.
	 */
	public interface RequestKeys {

		/**
		 * Returns the value of a rule's key in the request: its client address, a header's or a
		 * parameter's value, its principal's name, what a key-resolver bean returns.
		 * @param rule the rule
		 * @return the value, or {@code null} (or blank) when the request has none
		 */
		@Nullable String keyValue(RateLimitRule rule);

		/**
		 * Returns the request's client address.
		 * @return the address
		 */
		String clientAddress();

		/**
		 * Returns the first value of a request header, for plans a trusted upstream names.
		 * @param name the header's name
		 * @return the value, or {@code null}
		 */
		default @Nullable String header(String name) {
			return null;
		}

		/**
		 * Returns whether the request came through a trusted proxy ({@code ratelimit.trusted-proxies}): its
		 * connection's peer is one, so that what the proxy writes in headers can be believed.
		 * @return {@code true} only then
		 */
		default boolean fromTrustedProxy() {
			return false;
		}

	}

}

package dev.ratelimit.rules.internal;

import java.time.Clock;
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
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterTimeoutException;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.RateLimiters.Call;
import dev.ratelimit.RateLimiters;
import dev.ratelimit.rules.flow.RateLimitObserver.Outcome;
import dev.ratelimit.rules.internal.RuleBudgets.Budget;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.MissingKey;
import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.rules.RateLimitRule;

/**
 * Takes the decisions of the rules that apply to a request, whichever web stack it came through, and
 * applies the failure mode, in one place, when a decision cannot be reached: {@code fail-open} lets the
 * rule pass, {@code fail-closed} refuses the request (503), and {@code local} decides in this instance's
 * memory. A request passes only if every rule allows it; the first rule that refuses it ends the check
 * (rules after it are not charged). Shadow rules are decided and counted, never refuse. Every decision
 * is reported to the observer; nothing here fails a request on its own account.
 *
 * @since 0.1.0
 */
final class RateLimitEnforcer implements AutoCloseable {

	private final RateLimitRules rules;

	private final RuleBudgets budgets;

	private final StatusSettlement settlement;

	private final FailureMode failureMode;

	private final @Nullable RateLimiter local;

	private final ObservedDecisions observation;

	private final EnforcerLogs logs;

	private final SlotLeases leases;

	/** The limiters of rules with {@code prefetch}: a hot key's permits spent in this instance. */
	private final PrefetchingLimiters prefetching;

	/** The calls waiting for a permit of rules with {@code max-wait}. */
	private final RuleWaits waits;

	/**
	 * Creates an enforcer.
	 * @param rules the rules and their limiters
	 * @param failureMode what a request meets when a decision cannot be reached
	 * @param local the in-memory limiter of the {@code local} failure mode, or {@code null} in the others
	 * @param observer learns of every decision, for metrics
	 * @param plans finds the plan of a key under a rule whose plans a resolver bean names
	 * ({@link RateLimitPlans#NONE} without such rules)
	 * @param overrides the limits given to keys at runtime ({@link RateLimitOverrides#NONE} without them)
	 * @param clock tells which period of a calendar quota a request falls in
	 */
	public RateLimitEnforcer(RateLimitRules rules, FailureMode failureMode, @Nullable RateLimiter local,
			RateLimitObserver observer, RateLimitPlans plans, RateLimitOverrides overrides, Clock clock) {
		this.rules = rules;
		this.failureMode = failureMode;
		this.local = local;
		this.logs = new EnforcerLogs(failureMode);
		this.observation = new ObservedDecisions(observer, this.logs);
		this.budgets = new RuleBudgets(plans, overrides, clock, this.logs);
		this.settlement = new StatusSettlement(this.logs);
		this.leases = new SlotLeases(this.logs, System::nanoTime);
		this.prefetching = new PrefetchingLimiters(this.logs);
		this.waits = new RuleWaits(this.observation, System::nanoTime);
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
		RateLimitObserver.Request observing = this.observation.begin();
		RuleWaits.Wait wait = this.waits.begin(applicable);
		CompletableFuture<RateLimitVerdict> verdict = (applicable.size() > 1 && decidesTogether(applicable))
				? enforceTogether(request, applicable, keys, async, observing, wait)
				: enforceInTurn(request, applicable, keys, async, 0, new ArrayList<>(applicable.size()),
						new ArrayList<>(0), new ArrayList<>(0), observing, wait);
		return (wait != null) ? verdict.thenApply((decided) -> decided.waited(wait.end(decided.allowed()))) : verdict;
	}

	/**
	 * Decides the rules from {@code from} on one after the other; the first refusal ends the check. A rule that
	 * counts responses by status is charged like any other, its charge kept in {@code counted} to be settled
	 * after the response, or given back at once when the request is refused; a rule that limits requests in flight
	 * takes a slot, kept in {@code slots} until the response completes, or given back at once when the request is
	 * refused. A rule with {@code max-wait} that refuses it is decided again once its retry time has passed, the
	 * charges and slots of the rules before it kept meanwhile.
	 */
	private CompletableFuture<RateLimitVerdict> enforceInTurn(Supplier<String> request,
			List<RateLimitRule> applicable, RequestKeys keys, boolean async, int from, List<AppliedLimit> applied,
			List<StatusCharge> counted, List<RateLimitSlot> slots, RateLimitObserver.Request observing,
			RuleWaits.@Nullable Wait wait) {
		for (int index = from; index < applicable.size(); index++) {
			RateLimitRule rule = applicable.get(index);
			Budget budget = this.budgets.of(rule, keys);
			if (budget == RuleBudgets.EXEMPT) {
				continue;
			}
			RateLimitObserver.Decision observed = this.observation.start(observing, rule);
			long started = System.nanoTime();
			if (budget == null) {
				this.observation.end(observed, Outcome.MISSING_KEY, System.nanoTime() - started);
				if (rule.missingKey() == MissingKey.SKIP) {
					continue;
				}
				return refused(new RateLimitVerdict(applied, List.of(), false, rule), counted, slots, async);
			}
			int current = index;
			int first = applied.size();
			return this.observation.around(observed, () -> decide(rule, budget, async)).handle((decided, failure) -> {
				Taken taken = decided;
				RateLimiter decidedBy = this.rules.limiter(rule);
				String decidedKey = budget.id();
				if (failure != null) {
					taken = onFailure(rule, budget, unwrap(failure));
					if (taken == null) {
						this.observation.end(observed, Outcome.ERROR, System.nanoTime() - started);
						// a rule in shadow mode or soft never refuses, not even with 503
						return (this.failureMode == FailureMode.FAIL_CLOSED && !rule.neverRefuses())
								? new RateLimitVerdict(applied, List.of(), true, null) : null;
					}
					decidedBy = this.local;
					decidedKey = RateLimitKeys.local(rule.algorithm(), budget.id());
				}
				RateLimitVerdict refused = accept(request, rule, budget, taken, observed, System.nanoTime() - started,
						applied, slots, wait);
				boolean charged = !taken.decisions().isEmpty()
						&& taken.decisions().stream().allMatch(RateLimitDecision::allowed);
				if (refused == null && (rule.countStatuses() != null || rule.costFrom() != null) && decidedBy != null
						&& charged) {
					// settled after the response: by its status, or by its actual cost
					counted.add(new StatusCharge(rule, decidedBy, decidedKey, budget.charged(), rule.cost()));
				}
				else if (refused == null && !rule.enforce() && rule.costFrom() != null && decidedBy != null
						&& !taken.decisions().isEmpty()) {
					// a soft rule let the request in over its limit, reserving nothing: the work's actual cost is
					// charged all the same
					counted.add(new StatusCharge(rule, decidedBy, decidedKey, budget.charged(), 0));
				}
				return refused;
			})
				.thenCompose((verdict) -> {
					if (verdict == null) {
						return enforceInTurn(request, applicable, keys, async, current + 1, applied, counted, slots,
								observing, wait);
					}
					if (wait == null || !wait.pending()) {
						return refused(verdict, counted, slots, async);
					}
					// the rule is decided again once the time Redis gave has passed: its refusal leaves the headers
					applied.subList(first, applied.size()).clear();
					return RuleWaits.pause(wait.take(), async)
						.thenCompose((resumed) -> resumed ? enforceInTurn(request, applicable, keys, async, current,
								applied, counted, slots, observing, wait) : refused(verdict, counted, slots, async));
				});
		}
		return CompletableFuture
			.completedFuture(new RateLimitVerdict(applied, List.of(), false, null, List.copyOf(counted), held(slots)));
	}

	/**
	 * Returns a verdict that refuses the request, once the charges taken for it under rules that count
	 * responses by status are given back (a request that never reached its handler has no status to count), and
	 * the slots it took are given back.
	 */
	private CompletableFuture<RateLimitVerdict> refused(RateLimitVerdict verdict, List<StatusCharge> counted,
			List<RateLimitSlot> slots, boolean async) {
		CompletableFuture<Void> released = release(slots, async);
		if (counted.isEmpty()) {
			return released.thenApply((done) -> verdict);
		}
		return released.thenCompose((done) -> this.settlement.refund(counted, async)).thenApply((done) -> verdict);
	}

	/**
	 * Gives slots back; synchronously (every one answered before it returns) or not.
	 * @param slots the slots
	 * @param async whether to hold no thread while Redis answers
	 * @return completes when every slot is given back; never exceptionally (a slot Redis could not take back comes
	 * back when its lease ends)
	 */
	public CompletableFuture<Void> release(List<RateLimitSlot> slots, boolean async) {
		CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
		for (RateLimitSlot slot : slots) {
			CompletableFuture<Void> released = this.leases.release(slot).handle((done, failure) -> {
				if (failure != null && !(unwrap(failure) instanceof RateLimiterUnavailableException)) {
					this.logs.unexpected(unwrap(failure));
				}
				return null;
			});
			if (!async) {
				released.join();
			}
			all = all.thenCombine(released, (first, second) -> null);
		}
		return all;
	}

	/** The slots of a request let through, renewed from now on until they are given back. */
	private List<RateLimitSlot> held(List<RateLimitSlot> slots) {
		for (RateLimitSlot slot : slots) {
			this.leases.hold(slot);
		}
		return List.copyOf(slots);
	}

	private CompletableFuture<Taken> decide(RateLimitRule rule, Budget budget, boolean async) {
		// a rule that counts responses by status is charged now too, so that concurrent requests can never take
		// more than its budget, and gives the permits back after a response whose status it does not count
		RateLimiter limiter = limiter(rule);
		RateLimit concurrency = rule.concurrency();
		try {
			if (concurrency == null) {
				return async ? limiter.tryAcquireAsync(budget.id(), budget.charged(), rule.cost()).thenApply(Taken::of)
						: CompletableFuture.completedFuture(Taken.of(limiter.tryAcquire(budget.id(), budget.charged(), rule.cost())));
			}
			if (budget.charged().isEmpty()) {
				return slot(limiter, budget.id(), concurrency, async).thenApply((slot) -> new Taken(List.of(), slot));
			}
			if (!rule.neverRefuses() && RateLimiters.canDecideTogether(List.of(limiter, limiter))) {
				// the slot and the rate limits in one script call, all or nothing
				List<Call> calls = List.of(new Call(limiter, budget.id(), budget.charged(), rule.cost()),
						Call.slot(limiter, budget.id(), concurrency.limit(), concurrency.window()));
				CompletableFuture<List<List<RateLimitDecision>>> decided = async ? RateLimiters.tryAcquireTogetherAsync(calls)
						: CompletableFuture.completedFuture(RateLimiters.tryAcquireTogether(calls));
				return decided.thenApply((answers) -> new Taken(answers.get(0),
						(answers.size() > 1) ? calls.get(1).slot(answers.get(1)) : null));
			}
			// one after the other (a Redis Cluster, a shadow rule): the rate limits, then the slot; a slot refused gives
			// the permits back
			CompletableFuture<List<RateLimitDecision>> rated = async
					? limiter.tryAcquireAsync(budget.id(), budget.charged(), rule.cost())
					: CompletableFuture.completedFuture(limiter.tryAcquire(budget.id(), budget.charged(), rule.cost()));
			return rated.thenCompose((decisions) -> {
				boolean granted = decisions.stream().allMatch(RateLimitDecision::allowed);
				if (!granted && !rule.neverRefuses()) {
					return CompletableFuture.completedFuture(Taken.of(decisions));
				}
				// a soft or shadow rule over its rate limit still takes a slot when one is free: it lets the request in
				return slot(limiter, budget.id(), concurrency, async).handle((slot, failure) -> {
					if (granted && (failure != null || (!slot.acquired() && !rule.neverRefuses()))) {
						// the permits go back: the slot was refused, or could not be decided (the failure mode decides
						// the rule again, whole)
						CompletableFuture<Void> refunded = async
								? limiter.refundAsync(budget.id(), budget.charged(), rule.cost())
								: CompletableFuture.runAsync(() -> limiter.refund(budget.id(), budget.charged(), rule.cost()),
										Runnable::run);
						return refunded.handle((done, refundFailure) -> {
							if (failure != null) {
								throw (failure instanceof CompletionException completion) ? completion
										: new CompletionException(failure);
							}
							return new Taken(decisions, slot);
						});
					}
					if (failure != null) {
						return CompletableFuture.<Taken>failedFuture(failure);
					}
					return CompletableFuture.completedFuture(new Taken(decisions, slot));
				}).thenCompose(java.util.function.Function.identity());
			});
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * The limiter that decides a rule's requests: its algorithm's, or for a rule with {@code prefetch} the one that
	 * spends batches of permits taken from it.
	 */
	private RateLimiter limiter(RateLimitRule rule) {
		return this.prefetching.of(rule, this.rules.limiter(rule));
	}

	private static CompletableFuture<RateLimitSlot> slot(RateLimiter limiter, String key, RateLimit concurrency,
			boolean async) {
		return async ? limiter.tryAcquireSlotAsync(key, concurrency.limit(), concurrency.window())
				: CompletableFuture.completedFuture(limiter.tryAcquireSlot(key, concurrency.limit(), concurrency.window()));
	}

	/** The cause of a failed stage, as thrown; an {@link Error} is thrown again. */
	public static RuntimeException unwrap(Throwable failure) {
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
			if (rule.neverRefuses() || rule.countStatuses() != null || rule.costFrom() != null || rule.block() != null
					|| rule.prefetch() > 0) {
				// the refusal of a shadow or soft rule must not keep the others from being charged; checks and blocks
				// have scripts of their own; a prefetching rule spends permits it took earlier
				return false;
			}
			limiters.add(this.rules.limiter(rule));
		}
		return RateLimiters.canDecideTogether(limiters);
	}

	/**
	 * Decides rules all or nothing in one Redis call: when one refuses, none is charged. A rule that limits
	 * requests in flight adds its slot's call right after its rate limits'.
	 */
	private CompletableFuture<RateLimitVerdict> enforceTogether(Supplier<String> request,
			List<RateLimitRule> applicable, RequestKeys keys, boolean async, RateLimitObserver.Request observing,
			RuleWaits.@Nullable Wait wait) {
		List<RateLimitRule> included = new ArrayList<>(applicable.size());
		List<Budget> budgets = new ArrayList<>(applicable.size());
		List<Call> calls = new ArrayList<>(applicable.size());
		// per included rule: the index of its rate call and of its slot call, -1 for none
		List<int[]> indexes = new ArrayList<>(applicable.size());
		for (RateLimitRule rule : applicable) {
			Budget budget = this.budgets.of(rule, keys);
			if (budget == RuleBudgets.EXEMPT) {
				continue;
			}
			if (budget == null) {
				this.observation.end(this.observation.start(observing, rule), Outcome.MISSING_KEY, 0);
				if (rule.missingKey() == MissingKey.SKIP) {
					continue;
				}
				return CompletableFuture.completedFuture(new RateLimitVerdict(List.of(), List.of(), false, rule));
			}
			included.add(rule);
			budgets.add(budget);
			RateLimiter limiter = this.rules.limiter(rule);
			int rate = -1;
			if (!budget.charged().isEmpty()) {
				rate = calls.size();
				calls.add(new Call(limiter, budget.id(), budget.charged(), rule.cost()));
			}
			int slot = -1;
			RateLimit concurrency = rule.concurrency();
			if (concurrency != null) {
				slot = calls.size();
				calls.add(Call.slot(limiter, budget.id(), concurrency.limit(), concurrency.window()));
			}
			indexes.add(new int[] { rate, slot });
		}
		List<RateLimitObserver.Decision> observed = included.stream()
			.map((rule) -> this.observation.start(observing, rule))
			.toList();
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
		return decided
			.handle((answers, failure) -> verdict(request, included, budgets, calls, indexes, observed, answers,
					(failure != null) ? unwrap(failure) : null, System.nanoTime() - started, wait))
			.thenCompose((verdict) -> verdict.allowed() ? CompletableFuture.completedFuture(verdict)
					: refused(verdict, List.of(), verdict.slots(), async).thenCompose((done) -> {
						RateLimitVerdict refused = new RateLimitVerdict(verdict.applied(), verdict.violated(),
								verdict.unavailable(), verdict.missingKey());
						if (wait == null || !wait.pending()) {
							return CompletableFuture.completedFuture(refused);
						}
						// decided together, nothing was charged: all of them are decided again once the time has passed
						return RuleWaits.pause(wait.take(), async)
							.thenCompose((resumed) -> resumed
									? enforceTogether(request, applicable, keys, async, observing, wait)
									: CompletableFuture.completedFuture(refused));
					}));
	}

	/**
	 * The verdict of rules decided together; a refused one carries the slots taken for it (under the
	 * {@code local} failure mode), for the caller to give back.
	 */
	private RateLimitVerdict verdict(Supplier<String> request, List<RateLimitRule> included, List<Budget> budgets,
			List<Call> calls, List<int[]> indexes, List<RateLimitObserver.Decision> observed,
			@Nullable List<List<RateLimitDecision>> answers, @Nullable RuntimeException failure, long nanos,
			RuleWaits.@Nullable Wait wait) {
		List<AppliedLimit> applied = new ArrayList<>(included.size());
		List<RateLimitSlot> slots = new ArrayList<>(0);
		for (int i = 0; i < included.size(); i++) {
			RateLimitRule rule = included.get(i);
			Taken taken;
			if (failure != null || answers == null) {
				taken = onFailure(rule, budgets.get(i), (i == 0) ? failure : null);
				if (taken == null) {
					this.observation.end(observed.get(i), Outcome.ERROR, nanos);
					if (this.failureMode == FailureMode.FAIL_CLOSED) {
						endUnreached(observed, i + 1, nanos);
						return new RateLimitVerdict(applied, List.of(), true, null, List.of(), slots);
					}
					continue;
				}
			}
			else {
				int rate = indexes.get(i)[0];
				int slot = indexes.get(i)[1];
				int last = Math.max(rate, slot);
				if (last >= answers.size()) {
					// a rule's calls come together: its rate call answered and its slot's not means the slot was the
					// first refused, which answers; a rule after the refused one was not reached
					if (rate >= answers.size() || rate < 0 || slot < answers.size()) {
						this.observation.end(observed.get(i), Outcome.NOT_REACHED, nanos);
						continue;
					}
				}
				taken = new Taken((rate >= 0) ? answers.get(rate) : List.of(),
						(slot >= 0 && slot < answers.size()) ? calls.get(slot).slot(answers.get(slot)) : null);
			}
			RateLimitVerdict refused = accept(request, rule, budgets.get(i), taken, observed.get(i), nanos, applied,
					slots, wait);
			if (refused != null) {
				endUnreached(observed, i + 1, nanos);
				// decided together, nothing was taken: only slots the local failure mode took are to be given back
				return new RateLimitVerdict(refused.applied(), refused.violated(), false, null, List.of(),
						(failure != null || answers == null) ? slots : List.of());
			}
		}
		return new RateLimitVerdict(applied, List.of(), false, null, List.of(), held(slots));
	}

	private void endUnreached(List<RateLimitObserver.Decision> observed, int from, long nanos) {
		for (int i = from; i < observed.size(); i++) {
			this.observation.end(observed.get(i), Outcome.NOT_REACHED, nanos);
		}
	}

	/**
	 * Records a rule's decisions among the limits applied to the request, and its slot among the slots it holds.
	 * @return the verdict refusing the request when the rule refused it (shadow rules never do), else
	 * {@code null}; when the request is to wait for a permit instead, {@code wait} tells how long
	 */
	private @Nullable RateLimitVerdict accept(Supplier<String> request, RateLimitRule rule, Budget budget, Taken taken,
			RateLimitObserver.Decision observed, long nanos, List<AppliedLimit> applied, List<RateLimitSlot> slots,
			RuleWaits.@Nullable Wait wait) {
		int first = applied.size();
		List<AppliedLimit> violated = new ArrayList<>(0);
		List<RateLimitDecision> decisions = taken.decisions();
		for (int i = 0; i < decisions.size(); i++) {
			RateLimitDecision decision = budget.capped(decisions.get(i));
			if (rule.countStatuses() != null && decision.allowed()) {
				// the headers tell the budget as the request found it: its own charge is settled by its status
				decision = RateLimitDecision.allowed(decision.limit(),
						Math.min(decision.remaining() + rule.cost(), decision.limit()), decision.resetAfter());
			}
			AppliedLimit limit = new AppliedLimit(rule.policyName(i, budget.limits()), budget.limits().get(i), decision,
					false, rule, budget.partition());
			applied.add(limit);
			if (!limit.decision().allowed()) {
				violated.add(limit);
			}
		}
		RateLimitSlot slot = taken.slot();
		if (slot != null) {
			AppliedLimit limit = new AppliedLimit(rule.name(), slot.concurrency(), slot.decision(), true, rule,
					budget.partition());
			applied.add(limit);
			if (slot.acquired()) {
				slots.add(slot);
			}
			else {
				violated.add(limit);
			}
		}
		if (violated.isEmpty()) {
			budgetLeft(rule, applied.subList(first, applied.size()));
			this.observation.end(observed, Outcome.ALLOWED, nanos);
			return null;
		}
		if (rule.shadow()) {
			this.observation.end(observed, Outcome.SHADOW_REJECTED, nanos);
			this.logs.shadowRejection(rule, budget.id());
			return null;
		}
		if (!rule.enforce()) {
			// a soft rule lets the request through: its handler reads where the caller stands
			this.observation.end(observed, Outcome.SOFT_EXCEEDED, nanos);
			return null;
		}
		if (wait != null && wait.waitsFor(rule, violated)) {
			this.observation.end(observed, Outcome.WAITED, nanos);
			return new RateLimitVerdict(applied, violated, false, null);
		}
		this.observation.end(observed, Outcome.REJECTED, nanos);
		this.logs.rejected(request, rule, budget.id());
		return new RateLimitVerdict(applied, violated, false, null);
	}

	/** Tells the observer what an allowed request left of the rule's tightest limit, as a share of the limit. */
	private void budgetLeft(RateLimitRule rule, List<AppliedLimit> limits) {
		RateLimitDecision tightest = null;
		for (AppliedLimit limit : limits) {
			RateLimitDecision decision = limit.decision();
			if (decision.limit() > 0 && (tightest == null
					|| (double) decision.remaining() / decision.limit() < (double) tightest.remaining() / tightest.limit())) {
				tightest = decision;
			}
		}
		if (tightest != null) {
			this.observation.budgetLeft(rule, tightest.remaining(), tightest.limit());
		}
	}

	/**
	 * Applies the failure mode to a rule whose decision could not be reached.
	 * @return the decisions taken instead, or {@code null} when the rule takes none: it passes, or in
	 * {@code fail-closed} it refuses the request
	 */
	private @Nullable Taken onFailure(RateLimitRule rule, Budget budget, @Nullable RuntimeException cause) {
		if (cause instanceof RateLimiterTimeoutException timeout) {
			this.logs.timedOut(timeout);
		}
		else if (cause != null && !(cause instanceof RateLimiterUnavailableException)) {
			this.logs.unexpected(cause);
		}
		RateLimiter local = this.local;
		if (this.failureMode != FailureMode.LOCAL || local == null) {
			return null;
		}
		List<RateLimitDecision> decisions = budget.charged().isEmpty() ? List.of()
				: local.tryAcquire(RateLimitKeys.local(rule.algorithm(), budget.id()), budget.charged(), rule.cost());
		RateLimit concurrency = rule.concurrency();
		if (concurrency == null || !decisions.stream().allMatch(RateLimitDecision::allowed)) {
			return Taken.of(decisions);
		}
		RateLimitSlot slot = local.tryAcquireSlot(RateLimitKeys.localSlots(budget.id()), concurrency.limit(),
				concurrency.window());
		if (!slot.acquired() && !decisions.isEmpty() && !rule.neverRefuses()) {
			local.refund(RateLimitKeys.local(rule.algorithm(), budget.id()), budget.charged(), rule.cost());
		}
		return new Taken(decisions, slot);
	}

	/**
	 * What a rule took: its rate limits' decisions (none for a rule of requests in flight only), and its slot.
	 */
	private record Taken(List<RateLimitDecision> decisions, @Nullable RateLimitSlot slot) {

		static Taken of(List<RateLimitDecision> decisions) {
			return new Taken(decisions, null);
		}

	}

	/**
	 * Stops renewing slots (those still held come back when their leases end) and gives back the permits prefetching
	 * rules hold unspent.
	 */
	@Override
	public void close() {
		this.leases.close();
		givePrefetchedBack();
	}

	/** Gives back what prefetching rules hold unspent; their requests are decided in Redis one by one from now on. */
	void givePrefetchedBack() {
		this.prefetching.close();
	}

	/** The budgets of requests under rules, for the flow's plan look-ups. */
	public RuleBudgets budgets() {
		return this.budgets;
	}

	/** The refunds of {@code count-statuses} charges, for the flow's settlement after a response. */
	public StatusSettlement settlement() {
		return this.settlement;
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

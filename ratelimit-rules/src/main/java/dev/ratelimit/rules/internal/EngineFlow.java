package dev.ratelimit.rules.internal;

import dev.ratelimit.rules.flow.ClientAddressResolver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.RateLimitExceededException;

import org.springframework.http.HttpHeaders;
import org.springframework.util.Assert;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;
import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.CallEnd;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.RateLimitContext;
import dev.ratelimit.rules.flow.RateLimitCall;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.flow.RateLimitRequest;

/**
 * The engine's {@link RateLimitFlow}: screens, matches, asks the conditions, reads the keys, has the
 * {@link RateLimitEnforcer} decide, writes the headers, answers a refusal, and settles what a call took. Built by
 * {@link RateLimitEngine}.
 */
final class EngineFlow implements RateLimitFlow {

	private static final String APPLIED = EngineFlow.class.getName() + ".applied";

	/** Marks a request from an allowed client address: it skips every rule. */
	private static final String ALLOWED = EngineFlow.class.getName() + ".allowed";

	private static final CompletableFuture<Boolean> GO_ON = CompletableFuture.completedFuture(true);

	private final RateLimitRules rules;

	private final RateLimitEnforcer enforcer;

	private final ClientAddressResolver addresses;

	private final RateLimitHeaders headers;

	/**
	 * Creates the flow.
	 * @param rules the rules in force
	 * @param enforcer decides requests under the rules
	 * @param addresses resolves client addresses, and tells the trusted proxies
	 * @param headers builds the rate-limit headers
	 */
	EngineFlow(RateLimitRules rules, RateLimitEnforcer enforcer, ClientAddressResolver addresses,
			RateLimitHeaders headers) {
		this.rules = rules;
		this.enforcer = enforcer;
		this.addresses = addresses;
		this.headers = headers;
	}

	@Override
	public CompletableFuture<Boolean> beforeAuthentication(RateLimitRequest exchange) {
		AddressLists lists = this.rules.addressLists();
		if (!lists.isEmpty()) {
			switch (lists.screen(exchange.clientAddress())) {
				case DENIED -> {
					return exchange.reject(RateLimitRejection.denied(exchange.method(), exchange.target()))
						.thenApply((written) -> false);
				}
				case ALLOWED -> {
					exchange.setAttribute(ALLOWED, Boolean.TRUE);
					return GO_ON;
				}
				case CHECKED -> {
					// the rules decide
				}
			}
		}
		return applyMatched(exchange, this.rules.matchBeforeAuthentication(exchange.method(), exchange::path));
	}

	@Override
	public java.util.Map<String, Object> inherited(RateLimitCall request) {
		Object allowed = request.getAttribute(ALLOWED);
		return (allowed != null) ? java.util.Map.of(ALLOWED, allowed) : java.util.Map.of();
	}

	@Override
	public boolean mayApplyBeforeAuthentication() {
		return this.rules.mayApplyBeforeAuthentication();
	}

	@Override
	public java.util.Map<String, Boolean> costHeaders() {
		return this.rules.costHeaders();
	}

	@Override
	public boolean countsStatuses() {
		return this.rules.countsStatuses();
	}

	@Override
	public boolean mayApplyAfterAuthentication() {
		return this.rules.mayApplyAfterAuthentication();
	}

	@Override
	public CompletableFuture<Boolean> afterAuthentication(RateLimitRequest exchange) {
		if (exchange.getAttribute(ALLOWED) != null) {
			return GO_ON;
		}
		return exchange.handler(this.rules.hasHandlerRules())
			.thenCompose((handler) -> applyMatched(exchange,
					this.rules.matchAfterAuthentication(exchange.method(), exchange::path, handler)));
	}

	@Override
	public CompletableFuture<Boolean> apply(RateLimitCall exchange, List<RateLimitRule> matched) {
		if (matched.isEmpty() || exchange.getAttribute(ALLOWED) != null) {
			return GO_ON;
		}
		return applyMatched(exchange, matched);
	}

	@Override
	public boolean allowedPastRules(RateLimitCall exchange) {
		return exchange.getAttribute(ALLOWED) != null;
	}

	/**
	 * Applies the rules the two turns matched, the client address screened already.
	 */
	private CompletableFuture<Boolean> applyMatched(RateLimitCall exchange, List<RateLimitRule> matched) {
		if (matched.isEmpty()) {
			return GO_ON;
		}
		return withConditions(exchange, matched).thenCompose((applicable) -> decide(exchange, applicable));
	}

	private CompletableFuture<Boolean> decide(RateLimitCall exchange, List<RateLimitRule> applicable) {
		if (applicable.isEmpty()) {
			return GO_ON;
		}
		// budgets charge an IPv6 client under its network (ratelimit.ipv6-prefix-length)
		String clientAddress = this.addresses.budgetAddress(clientAddress(exchange));
		CompletableFuture<RateLimitVerdict> decided = CallKeys
			.read(exchange, applicable, clientAddress, this.enforcer.budgets(), this.addresses)
			.thenCompose((keys) -> exchange.mayBlock()
					? CompletableFuture.completedFuture(this.enforcer.enforce(exchange::describe, applicable, keys))
					: exchange.observed(() -> this.enforcer.enforceAsync(exchange::describe, applicable, keys)));
		return exchange.resume(decided).thenCompose((verdict) -> answer(exchange, verdict));
	}

	private CompletableFuture<Boolean> answer(RateLimitCall exchange, RateLimitVerdict decided) {
		// the headers announce every rule applied to the request, before and after authentication
		@SuppressWarnings("unchecked")
		RateLimitVerdict verdict = decided.after((List<AppliedLimit>) exchange.getAttribute(APPLIED));
		exchange.setAttribute(APPLIED, verdict.applied());
		exchange.writeHeaders(this.headers.of(verdict));
		if (verdict.allowed()) {
			// where the caller stands, for the handler (soft rules)
			exchange.setAttribute(RateLimitContext.ATTRIBUTE, RateLimitContext.of(verdict.applied()));
			AfterResponse after = decided.afterResponse();
			if (!after.isEmpty()) {
				// taken now, settled once the response is complete
				exchange.settleAfter(after);
			}
			return GO_ON;
		}
		exchange.setAttribute(REFUSED, Boolean.TRUE);
		return exchange.reject(rejection(exchange, verdict))
			.thenApply((written) -> false);
	}

	@Override
	public CompletableFuture<Void> refuse(RateLimitCall exchange, RateLimitExceededException refused) {
		List<AppliedLimit> violated = new ArrayList<>(refused.getRefusals().size());
		for (RateLimitExceededException.Refusal refusal : refused.getRefusals()) {
			violated.add(new AppliedLimit(refusal.policy(), refusal.limit(), refusal.decision(), false, null, null,
					refusal.unit()));
		}
		RateLimitVerdict verdict = new RateLimitVerdict(violated, violated, false, null);
		@SuppressWarnings("unchecked")
		RateLimitVerdict whole = verdict.after((List<AppliedLimit>) exchange.getAttribute(APPLIED));
		exchange.writeHeaders(this.headers.of(whole));
		return exchange.reject(rejection(exchange, verdict));
	}

	@Override
	public CompletableFuture<Void> throttle(RateLimitCall exchange, int status, long retryAfterSeconds) {
		if (retryAfterSeconds > 0) {
			@SuppressWarnings("unchecked")
			RateLimitVerdict own = new RateLimitVerdict(List.of(), List.of(), false, null)
				.after((List<AppliedLimit>) exchange.getAttribute(APPLIED));
			HttpHeaders headers = this.headers.of(own);
			headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
			exchange.writeHeaders(headers);
		}
		return exchange.reject(new RateLimitRejection.Throttled(methodOf(exchange), pathOf(exchange), status,
				retryAfterSeconds));
	}

	@Override
	public CompletableFuture<Void> end(AfterResponse after, CallEnd how, boolean mayBlock) {
		boolean async = !mayBlock;
		if (how instanceof CallEnd.Completed completed) {
			return settle(after, completed.status(), completed.costs(), async);
		}
		if (how instanceof CallEnd.GrpcClosed closed) {
			return settle(after, closed.httpStatus(), ResponseCost.Actual.NONE, async);
		}
		if (how instanceof CallEnd.Answered answered) {
			ResponseCost.Actual costs = answeredCosts(after, answered.headers());
			return settle(after, answered.status(), answered.refused() ? ResponseCost.Actual.NOTHING : costs, async);
		}
		List<dev.ratelimit.RateLimitSlot> slots = Settlement.of(after).slots();
		return slots.isEmpty() ? CompletableFuture.completedFuture(null) : this.enforcer.release(slots, async);
	}

	/**
	 * Reads the actual costs of {@code cost-from} rules from an answer's headers, removing a rule's header unless it
	 * exposes it.
	 */
	private static ResponseCost.Actual answeredCosts(AfterResponse after, HttpHeaders headers) {
		java.util.Map<String, String> costs = new java.util.HashMap<>(2);
		for (StatusCharge charge : Settlement.of(after).charges()) {
			if (charge.rule().costFrom() instanceof ResponseCost.Header header) {
				String value = headers.getFirst(header.name());
				if (value != null) {
					costs.put(header.name().toLowerCase(java.util.Locale.ROOT), value);
				}
				if (!header.expose()) {
					headers.remove(header.name());
				}
			}
		}
		return costs.isEmpty() ? ResponseCost.Actual.NONE
				: ResponseCost.fromHeaders((name) -> costs.get(name.toLowerCase(java.util.Locale.ROOT)));
	}

	private CompletableFuture<Void> settle(AfterResponse after, int status, ResponseCost.Actual costs, boolean async) {
		Settlement settlement = Settlement.of(after);
		CompletableFuture<Void> released = this.enforcer.release(settlement.slots(), async);
		if (settlement.charges().isEmpty()) {
			return released;
		}
		return released
			.thenCompose((done) -> this.enforcer.settlement().settle(settlement.charges(), status, costs, async));
	}

	/**
	 * Returns the rules whose condition bean, if they name one, says that they apply to the request, asked in
	 * turn; a condition that fails counts as applying (its failure is logged at most once a minute).
	 */
	private static CompletableFuture<List<RateLimitRule>> withConditions(RateLimitCall exchange,
			List<RateLimitRule> matched) {
		if (!anyCondition(matched)) {
			return CompletableFuture.completedFuture(matched);
		}
		CompletableFuture<List<RateLimitRule>> applicable = CompletableFuture.completedFuture(new ArrayList<>());
		for (RateLimitRule rule : matched) {
			applicable = applicable.thenCompose((found) -> applies(exchange, rule).thenApply((applies) -> {
				if (applies) {
					found.add(rule);
				}
				return found;
			}));
		}
		return applicable;
	}

	private static boolean anyCondition(List<RateLimitRule> rules) {
		// a loop, not a stream: asked on every request a rule matches
		for (RateLimitRule rule : rules) {
			if (rule.condition() != null) {
				return true;
			}
		}
		return false;
	}

	private static CompletableFuture<Boolean> applies(RateLimitCall exchange, RateLimitRule rule) {
		if (rule.condition() == null) {
			return GO_ON;
		}
		try {
			return exchange.condition(rule).toCompletableFuture().handle((applies, failure) -> {
				if (failure != null) {
					RateLimitRules.conditionFailed(rule, RateLimitEnforcer.unwrap(failure));
					return true;
				}
				return applies == null || applies;
			});
		}
		catch (RuntimeException ex) {
			RateLimitRules.conditionFailed(rule, ex);
			return GO_ON;
		}
	}

	/**
	 * Returns the rejection of a request the rules refused.
	 */
	/**
	 * The client address a call's budgets are charged under: its own, or {@link RateLimitCall#NO_CLIENT} for every call that has
	 * none.
	 */
	static String clientAddress(RateLimitCall call) {
		String address = call.clientAddress();
		return (address != null) ? address : RateLimitCall.NO_CLIENT;
	}

	private static RateLimitRejection rejection(RateLimitCall call, RateLimitVerdict verdict) {
		Assert.isTrue(!verdict.allowed(), "the verdict must refuse the request");
		String method = methodOf(call);
		String path = pathOf(call);
		RateLimitRule missingKey = verdict.missingKey();
		if (missingKey != null) {
			return new RateLimitRejection.MissingKey(method, path, missingKey);
		}
		if (verdict.unavailable()) {
			return new RateLimitRejection.Unavailable(method, path);
		}
		return new RateLimitRejection.Limited(method, path, verdict.violated(),
				RateLimitHeaders.retryAfterSeconds(verdict.violated()));
	}

	/** A rejection's method: a call that is no request has none. */
	private static String methodOf(RateLimitCall call) {
		return (call instanceof RateLimitRequest request) ? request.method() : "";
	}

	/** A rejection's path: a call that is no request names itself instead. */
	private static String pathOf(RateLimitCall call) {
		return (call instanceof RateLimitRequest request) ? request.target() : call.describe();
	}

}

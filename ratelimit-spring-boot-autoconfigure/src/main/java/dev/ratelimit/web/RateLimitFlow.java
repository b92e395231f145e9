package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.web.internal.AddressLists;
import dev.ratelimit.web.internal.StatusCharge;
import dev.ratelimit.web.internal.ClientAddressResolver;
import dev.ratelimit.web.internal.ExchangeKeys;
import dev.ratelimit.web.internal.RateLimitEnforcer;
import dev.ratelimit.web.internal.RateLimitHeaders;
import dev.ratelimit.web.internal.RateLimitRules;
import dev.ratelimit.web.internal.RateLimitVerdict;

import org.springframework.http.HttpHeaders;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;

/**
 * One request's way through the rules, the same whichever entry point it came in by (the servlet filter and
 * interceptor, the WebFlux filters, Spring Cloud Gateway's rate limiter): the allow and deny lists screen
 * its client address, the rules that match it are found and their conditions asked, the keys read, the
 * {@link RateLimitEnforcer} decides, the rate-limit headers of every rule applied so far are written, a
 * refused request is answered, and the charges to settle by status are handed to the entry point for after
 * the response. An entry point supplies only what is its own, as a {@link RateLimitExchange}: reading the request
 * and its keys, writing the response, and where the work resumes.
 * <p>
 * One path for blocking and non-blocking stacks: an exchange that {@linkplain RateLimitExchange#mayBlock may block}
 * gets a future completed before the call returns, every stage run on its thread.
 *
 * @since 0.1.0
 */
public final class RateLimitFlow {

	private static final String APPLIED = RateLimitFlow.class.getName() + ".applied";

	/**
	 * The attribute a request refused by the flow carries: what an earlier stage reserved for it ({@code cost-from}) is
	 * given back when it is settled, its handler never having run ({@link ResponseCost.Actual#NOTHING}).
	 */
	public static final String REFUSED = "dev.ratelimit.web.RateLimitFlow.refused";

	/** Marks a request from an allowed client address: it skips every rule. */
	private static final String ALLOWED = RateLimitFlow.class.getName() + ".allowed";

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
	public RateLimitFlow(RateLimitRules rules, RateLimitEnforcer enforcer, ClientAddressResolver addresses,
			RateLimitHeaders headers) {
		this.rules = rules;
		this.enforcer = enforcer;
		this.addresses = addresses;
		this.headers = headers;
	}

	/**
	 * Screens a request's client address, then applies the rules that run before authentication: those from
	 * properties that match the request, but those keyed by {@code principal}.
	 * @param exchange the request
	 * @return whether the request may go on; when not, its response is written
	 */
	public CompletableFuture<Boolean> beforeAuthentication(RateLimitExchange exchange) {
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

	/**
	 * Returns what calls made in a request carry of it, read now: the mark of a client address the allow list lets
	 * skip every rule ({@code ratelimit.allow.addresses}), which skips the limits of the bean methods its request
	 * calls too. An entry point reads it when the call is made, so that a decision that completes after the request
	 * has ended (a future its handler does not wait for) never touches the request again.
	 * @param request the request the call is made in
	 * @return the attributes to set on the call's exchange, by name; empty when none
	 */
	public java.util.Map<String, Object> inherited(RateLimitExchange request) {
		Object allowed = request.getAttribute(ALLOWED);
		return (allowed != null) ? java.util.Map.of(ALLOWED, allowed) : java.util.Map.of();
	}

	/**
	 * Returns whether {@link #beforeAuthentication} may do anything: when not (no address list, no rule but
	 * those keyed by {@code principal}), an entry point may let every request go on without it.
	 * @return {@code false} when that turn lets every request go on untouched
	 */
	public boolean mayApplyBeforeAuthentication() {
		return this.rules.mayApplyBeforeAuthentication();
	}

	/**
	 * Returns the response headers the rules read actual costs from ({@code cost-from=header:<Name>}), for the entry
	 * points that keep them from the client: by lower-case name, {@code true} when the header stays in the response.
	 * @return the headers, empty when no rule reads one
	 */
	public java.util.Map<String, Boolean> costHeaders() {
		return this.rules.costHeaders();
	}

	/**
	 * Returns whether a rule counts only some statuses ({@code count-statuses}): entry points that settle those
	 * charges as the status is committed watch a response only then.
	 * @return {@code false} when no response needs watching
	 */
	public boolean countsStatuses() {
		return this.rules.countsStatuses();
	}

	/**
	 * Returns whether {@link #afterAuthentication} may do anything: when not (no rule keyed by {@code principal},
	 * no annotated handler), an entry point may let every request go on without it.
	 * @return {@code false} when that turn lets every request go on untouched
	 */
	public boolean mayApplyAfterAuthentication() {
		return this.rules.mayApplyAfterAuthentication();
	}

	/**
	 * Applies the rules that run once a request is authenticated and its handler known: those from properties
	 * keyed by {@code principal}, then those of the handler's annotations. A request whose client address is
	 * allowed skips them.
	 * @param exchange the request
	 * @return whether the request may go on; when not, its response is written
	 */
	public CompletableFuture<Boolean> afterAuthentication(RateLimitExchange exchange) {
		if (exchange.getAttribute(ALLOWED) != null) {
			return GO_ON;
		}
		return exchange.handler(this.rules.hasHandlerRules())
			.thenCompose((handler) -> applyMatched(exchange,
					this.rules.matchAfterAuthentication(exchange.method(), exchange::path, handler)));
	}

	/**
	 * Applies given rules to a request: their conditions, their keys, the decision, the headers, the answer to
	 * a refusal. A request whose client address is allowed skips them.
	 * @param exchange the request
	 * @param matched the rules that match it, in order
	 * @return whether the request may go on; when not, its response is written
	 */
	public CompletableFuture<Boolean> apply(RateLimitExchange exchange, List<RateLimitRule> matched) {
		if (matched.isEmpty() || exchange.getAttribute(ALLOWED) != null) {
			return GO_ON;
		}
		return applyMatched(exchange, matched);
	}

	/**
	 * Returns whether a request's client address is on the allow list, so that it skips every rule: for an entry point
	 * that decides more than the request's start (the messages of a streaming gRPC call).
	 * @param exchange a request the flow screened
	 * @return {@code true} when its client address is allowed past every rule
	 */
	public boolean allowedPastRules(RateLimitExchange exchange) {
		return exchange.getAttribute(ALLOWED) != null;
	}

	/**
	 * Applies the rules the two turns matched, the client address screened already.
	 */
	private CompletableFuture<Boolean> applyMatched(RateLimitExchange exchange, List<RateLimitRule> matched) {
		if (matched.isEmpty()) {
			return GO_ON;
		}
		return withConditions(exchange, matched).thenCompose((applicable) -> decide(exchange, applicable));
	}

	private CompletableFuture<Boolean> decide(RateLimitExchange exchange, List<RateLimitRule> applicable) {
		if (applicable.isEmpty()) {
			return GO_ON;
		}
		// budgets charge an IPv6 client under its network (ratelimit.ipv6-prefix-length)
		String clientAddress = this.addresses.budgetAddress(exchange.clientAddress());
		CompletableFuture<RateLimitVerdict> decided = ExchangeKeys
			.read(exchange, applicable, clientAddress, this.enforcer.budgets(), this.addresses)
			.thenCompose((keys) -> exchange.mayBlock()
					? CompletableFuture.completedFuture(this.enforcer.enforce(exchange::describe, applicable, keys))
					: exchange.observed(() -> this.enforcer.enforceAsync(exchange::describe, applicable, keys)));
		return exchange.resume(decided).thenCompose((verdict) -> answer(exchange, verdict));
	}

	private CompletableFuture<Boolean> answer(RateLimitExchange exchange, RateLimitVerdict decided) {
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
		return exchange.reject(RateLimitRejection.of(exchange.method(), exchange.target(), verdict))
			.thenApply((written) -> false);
	}

	/**
	 * Answers a request as refused by limits applied outside its rules: a {@link dev.ratelimit.RateLimited} method of
	 * a bean that its handler called threw {@link RateLimitExceededException}. The headers announce the limits that
	 * refused it after those the request's own rules applied; the answer is the refusal of a request the rules
	 * refused (429 and the rejection handler's body).
	 * @param exchange the request, its response not committed yet
	 * @param refused the refusal
	 * @return completes when the response is written
	 */
	public CompletableFuture<Void> refuse(RateLimitExchange exchange, RateLimitExceededException refused) {
		List<AppliedLimit> violated = new ArrayList<>(refused.getRefusals().size());
		for (RateLimitExceededException.Refusal refusal : refused.getRefusals()) {
			violated.add(new AppliedLimit(refusal.policy(), refusal.limit(), refusal.decision()));
		}
		RateLimitVerdict verdict = new RateLimitVerdict(violated, violated, false, null);
		@SuppressWarnings("unchecked")
		RateLimitVerdict whole = verdict.after((List<AppliedLimit>) exchange.getAttribute(APPLIED));
		exchange.writeHeaders(this.headers.of(whole));
		return exchange.reject(RateLimitRejection.of(exchange.method(), exchange.target(), verdict));
	}

	/**
	 * Settles what a request took once its response is complete: its slots of requests in flight are given back; of
	 * the charges it took under rules that count responses by status ({@code count-statuses}), those whose rule
	 * counts the final status are kept, the others given back; the reservations of rules that read the actual cost
	 * ({@code cost-from}) are adjusted to the actual costs the response tells: the difference charged, or the excess
	 * given back. Failures are logged, never thrown.
	 * @param after what the entry point kept with {@link RateLimitExchange#settleAfter}
	 * @param status the final status of the response
	 * @param costs the actual costs the response tells
	 */
	public void settle(AfterResponse after, int status, ResponseCost.Actual costs) {
		settle(after, status, costs, false).join();
	}

	/**
	 * Settles as {@link #settle(AfterResponse, int, ResponseCost.Actual)} does, the reservations of {@code cost-from}
	 * rules standing, without holding the caller's thread while Redis answers.
	 * @param after what the entry point kept with {@link RateLimitExchange#settleAfter}
	 * @param status the final status of the response
	 * @return completes when everything is settled; never exceptionally
	 */
	public CompletableFuture<Void> settleAsync(AfterResponse after, int status) {
		return settle(after, status, ResponseCost.Actual.NONE, true);
	}

	/**
	 * Settles as {@link #settle(AfterResponse, int, ResponseCost.Actual)} does, without holding the caller's thread
	 * while Redis answers.
	 * @param after what the entry point kept with {@link RateLimitExchange#settleAfter}
	 * @param status the final status of the response
	 * @param costs the actual costs the response tells
	 * @return completes when everything is settled; never exceptionally
	 */
	public CompletableFuture<Void> settleAsync(AfterResponse after, int status, ResponseCost.Actual costs) {
		return settle(after, status, costs, true);
	}

	/**
	 * Settles the charges of a request whose answer is about to be committed, for reactive entry points: the actual
	 * costs of {@code cost-from} rules are read from the answer's headers, which keep a rule's header only if it exposes
	 * it ({@code cost-from-expose}); then {@link #settleAsync(AfterResponse, int, ResponseCost.Actual)}.
	 * @param after what the request settles: its charges
	 * @param status the answer's status
	 * @param headers the answer's headers, still writable
	 * @return completes when everything is settled; never exceptionally
	 */
	public CompletableFuture<Void> settleAnswered(AfterResponse after, int status, HttpHeaders headers) {
		return settleAnswered(after, status, headers, false);
	}

	/**
	 * Settles as {@link #settleAnswered(AfterResponse, int, HttpHeaders)} does, for an exchange this flow may have
	 * refused in a later stage: its handler never ran, and what it reserved is given back.
	 * @param after what the request settles: its charges
	 * @param status the answer's status
	 * @param headers the answer's headers, still writable
	 * @param refused whether the exchange carries {@link #REFUSED}
	 * @return completes when everything is settled; never exceptionally
	 */
	public CompletableFuture<Void> settleAnswered(AfterResponse after, int status, HttpHeaders headers, boolean refused) {
		java.util.Map<String, String> costs = new java.util.HashMap<>(2);
		for (StatusCharge charge : after.charges()) {
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
		if (refused) {
			return settleAsync(after, status, ResponseCost.Actual.NOTHING);
		}
		return settleAsync(after, status,
				costs.isEmpty() ? ResponseCost.Actual.NONE
						: ResponseCost.fromHeaders((name) -> costs.get(name.toLowerCase(java.util.Locale.ROOT))));
	}

	/**
	 * Gives back the slots of requests in flight a request or call took, and keeps its charges: for a request whose
	 * client went away before its response was complete (it has no status to count), and for entry points that
	 * settle no charges by status (bean methods, routes). Failures are logged, never thrown.
	 * @param after what the entry point kept with {@link RateLimitExchange#settleAfter}
	 * @return completes when the slots are given back; never exceptionally
	 */
	public CompletableFuture<Void> release(AfterResponse after) {
		return after.slots().isEmpty() ? CompletableFuture.completedFuture(null)
				: this.enforcer.release(after.slots(), true);
	}

	private CompletableFuture<Void> settle(AfterResponse after, int status, ResponseCost.Actual costs, boolean async) {
		CompletableFuture<Void> released = this.enforcer.release(after.slots(), async);
		if (after.charges().isEmpty()) {
			return released;
		}
		return released.thenCompose((done) -> this.enforcer.settlement().settle(after.charges(), status, costs, async));
	}

	/**
	 * Returns the rules whose condition bean, if they name one, says that they apply to the request, asked in
	 * turn; a condition that fails counts as applying (its failure is logged at most once a minute).
	 */
	private static CompletableFuture<List<RateLimitRule>> withConditions(RateLimitExchange exchange,
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

	private static CompletableFuture<Boolean> applies(RateLimitExchange exchange, RateLimitRule rule) {
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

}

package dev.ratelimit.rules.flow;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.RateLimitExceededException;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;

/**
 * One request's way through the rules, the same whichever entry point it came in by (the servlet filter and
 * interceptor, the WebFlux filters, Spring Cloud Gateway's rate limiter): the allow and deny lists screen
 * its client address, the rules that match it are found and their conditions asked, the keys read, the
 * engine decides, the rate-limit headers of every rule applied so far are written, a
 * refused request is answered, and the charges to settle by status are handed to the entry point for after
 * the response. An entry point supplies only what is its own, as a {@link RateLimitCall}: reading the call
 * and its keys, writing the response, and where the work resumes.
 * <p>
 * One path for blocking and non-blocking stacks: a call that {@linkplain RateLimitCall#mayBlock may block}
 * gets a future completed before the call returns, every stage run on its thread.
 *
 * <p>
 * The engine implements it: an application gets it as a bean, the engine's tests from
 * {@code dev.ratelimit.rules.internal.RateLimitEngine}.
 *
 * @since 0.1.0
 */
public interface RateLimitFlow {

	/**
	 * The attribute a request refused by the flow carries: what an earlier stage reserved for it ({@code cost-from}) is
	 * given back when it is settled, its handler never having run ({@link ResponseCost.Actual#NOTHING}).
	 */
	String REFUSED = "dev.ratelimit.rules.flow.RateLimitFlow.refused";

	/**
	 * Screens a request's client address, then applies the rules that run before authentication: those from
	 * properties that match the request, but those keyed by {@code principal}.
	 * @param exchange the request
	 * @return whether the request may go on; when not, its response is written
	 */
	CompletableFuture<Boolean> beforeAuthentication(RateLimitRequest exchange);

	/**
	 * Returns what calls made in a request carry of it, read now: the mark of a client address the allow list lets
	 * skip every rule ({@code ratelimit.allow.addresses}), which skips the limits of the bean methods its request
	 * calls too. An entry point reads it when the call is made, so that a decision that completes after the request
	 * has ended (a future its handler does not wait for) never touches the request again.
	 * @param request the request the call is made in
	 * @return the attributes to set on the call's exchange, by name; empty when none
	 */
	java.util.Map<String, Object> inherited(RateLimitCall request);

	/**
	 * Returns whether {@link #beforeAuthentication} may do anything: when not (no address list, no rule but
	 * those keyed by {@code principal}), an entry point may let every request go on without it.
	 * @return {@code false} when that turn lets every request go on untouched
	 */
	boolean mayApplyBeforeAuthentication();

	/**
	 * Returns the response headers the rules read actual costs from ({@code cost-from=header:<Name>}), for the entry
	 * points that keep them from the client: by lower-case name, {@code true} when the header stays in the response.
	 * @return the headers, empty when no rule reads one
	 */
	java.util.Map<String, Boolean> costHeaders();

	/**
	 * Returns whether a rule counts only some statuses ({@code count-statuses}): entry points that settle those
	 * charges as the status is committed watch a response only then.
	 * @return {@code false} when no response needs watching
	 */
	boolean countsStatuses();

	/**
	 * Returns whether {@link #afterAuthentication} may do anything: when not (no rule keyed by {@code principal},
	 * no annotated handler), an entry point may let every request go on without it.
	 * @return {@code false} when that turn lets every request go on untouched
	 */
	boolean mayApplyAfterAuthentication();

	/**
	 * Applies the rules that run once a request is authenticated and its handler known: those from properties
	 * keyed by {@code principal}, then those of the handler's annotations. A request whose client address is
	 * allowed skips them.
	 * @param exchange the request
	 * @return whether the request may go on; when not, its response is written
	 */
	CompletableFuture<Boolean> afterAuthentication(RateLimitRequest exchange);

	/**
	 * Applies given rules to a call: their conditions, their keys, the decision, the headers, the refusal. A call
	 * whose client address is allowed skips them.
	 * @param call the call
	 * @param matched the rules that apply to it, in order
	 * @return whether the call may go on; when not, it is refused
	 */
	CompletableFuture<Boolean> apply(RateLimitCall call, List<RateLimitRule> matched);

	/**
	 * Returns whether a request's client address is on the allow list, so that it skips every rule: for an entry point
	 * that decides more than the request's start (the messages of a streaming gRPC call).
	 * @param exchange a request the flow screened
	 * @return {@code true} when its client address is allowed past every rule
	 */
	boolean allowedPastRules(RateLimitCall exchange);

	/**
	 * Answers a request as refused by limits applied outside its rules: a {@link dev.ratelimit.RateLimited} method of
	 * a bean that its handler called threw {@link RateLimitExceededException}. The headers announce the limits that
	 * refused it after those the request's own rules applied; the answer is the refusal of a request the rules
	 * refused (429 and the rejection handler's body).
	 * @param exchange the request, its response not committed yet
	 * @param refused the refusal
	 * @return completes when the response is written
	 */
	CompletableFuture<Void> refuse(RateLimitCall exchange, RateLimitExceededException refused);

	/**
	 * Answers a request as refused by a limit the application applies in its own JVM: its handler called a method
	 * that Spring Framework's {@code @ConcurrencyLimit(policy = REJECT)} refused with
	 * {@code InvocationRejectedException}. The answer is the rejection handler's body for
	 * {@link RateLimitRejection.Throttled}, after the headers of the request's own rules, with {@code Retry-After}
	 * when it is known.
	 * @param exchange the request, its response not committed yet
	 * @param status the status to answer with: 503 or 429
	 * @param retryAfterSeconds the {@code Retry-After} to send, in whole seconds; zero to send none
	 * @return completes when the response is written
	 */
	CompletableFuture<Void> throttle(RateLimitCall exchange, int status, long retryAfterSeconds);

	/**
	 * Settles what a call took once it has ended, as its entry point tells: its slots of calls in flight are given
	 * back whatever the end; of the charges it took under rules that count responses by status ({@code count-statuses}),
	 * those whose rule counts its outcome are kept, the others given back; the reservations of rules that read the
	 * actual cost ({@code cost-from}) are adjusted to the actual costs it tells; a call abandoned before its outcome keeps
	 * its charges; what a call refused later reserved is given back. An entry point that settles in stages (the charges
	 * before the status is committed, the slots when the call completes) ends each part it holds
	 * ({@link AfterResponse#chargesOnly}, {@link AfterResponse#slotsOnly}). Failures are logged, never thrown.
	 * @param after what the entry point kept with {@link RateLimitCall#settleAfter}, or a part of it
	 * @param how how the call ended
	 * @param mayBlock whether the caller's thread may wait for Redis: then the future is complete when this returns
	 * @return completes when everything is settled; never exceptionally
	 */
	CompletableFuture<Void> end(AfterResponse after, CallEnd how, boolean mayBlock);

}

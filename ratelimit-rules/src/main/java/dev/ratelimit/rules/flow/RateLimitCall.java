package dev.ratelimit.rules.flow;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;

/**
 * One call as its entry point holds it, whatever it is (a web request, a gRPC call, a bean method's call, a call out
 * to a partner, a gateway route's request): what the {@link RateLimitFlow} reads of it and tells it. A call supplies
 * its keys, its client address where it has one, its attributes, where its work resumes and how to refuse it, and
 * keeps what it settles once it has ended for its entry point to {@linkplain RateLimitFlow#end end}. Only a call that
 * property rules match by path is a {@link RateLimitRequest}, with a method, a path and a handler.
 *
 * @since 0.1.0
 * @see DetachedCall
 */
public interface RateLimitCall {

	/**
	 * The client address the budgets of every call without one of its own are charged under ({@code ip} keys): a
	 * partner call's, a bean method's called outside any request.
	 */
	String NO_CLIENT = "none";

	/**
	 * Describes the call for logs and for the refusal of a call that is no request.
	 * @return a description, such as {@code GET /api/orders} or {@code call of OrderService.place(..)}
	 */
	String describe();

	/**
	 * Returns the call's client address, as the {@code ip} key and the allow and deny lists read it (for a request,
	 * through the trusted proxies' header). A call that has none (made outside any request: a partner call, a bean
	 * method called by a scheduled task) returns {@code null}; every such call of a rule keyed by {@code ip} shares one
	 * budget, {@link #NO_CLIENT}'s, and the address lists never screen it.
	 * @return the address, or {@code null} when the call has none
	 */
	@Nullable String clientAddress();

	/**
	 * Returns the address of the connection's peer, for telling whether a plan header comes from a trusted proxy.
	 * @return the address, or an empty string when the call has no connection of its own
	 */
	default String remoteAddress() {
		return "";
	}

	/**
	 * Returns the first value of a header the call carries: a request's header, a gRPC call's metadata, a header of
	 * the web request a bean method is called in. The flow reads header keys and plan headers with it.
	 * @param name the header's name
	 * @return the value, or {@code null} when the call has none of that name
	 */
	default @Nullable String header(String name) {
		return null;
	}

	/**
	 * Returns the value of a parameter, for rules keyed by {@code param:<name>}: a request's query parameter or form
	 * field. By default a call has none, and the rule's {@code missing-key} decides.
	 * @param name the parameter's name
	 * @return the value, {@code null} when the call has none; failed when it cannot be read
	 */
	default CompletionStage<@Nullable String> parameter(String name) {
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Returns the name of the call's authenticated principal, for rules keyed by {@code principal}. By default a call
	 * has none, and the rule's {@code missing-key} decides.
	 * @return the name, {@code null} when the call is not authenticated; failed when it cannot be read
	 */
	default CompletionStage<@Nullable String> principal() {
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Returns what the entry point's own resolvers find for a rule whose key is none of the others: a key-resolver
	 * bean's answer ({@code bean:<name>}), the gateway route's {@code KeyResolver} or the partner's name
	 * ({@code resolver}), a SpEL expression over a bean method's arguments. By default the call can read none of them.
	 * @param rule the rule
	 * @return the value, {@code null} when the call has none; failed when it cannot be read
	 */
	default CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
		return CompletableFuture.failedFuture(new IllegalStateException("Rate-limit rule '" + rule.name()
				+ "' has a key (" + rule.key().spelling() + ") that a " + describe() + " cannot supply"));
	}

	/**
	 * Reads a rule's key that is neither the client address nor a header, from the part of the call that holds it: the
	 * one place where a key's kind picks what is asked ({@link #parameter}, {@link #principal}, {@link #resolveKey}).
	 * What the call throws is returned as a failed stage, as what it fails with: either charges the client address.
	 * @param call the call
	 * @param rule the rule
	 * @return the value, {@code null} when the call has none; failed when it cannot be read
	 */
	static CompletionStage<@Nullable String> keyOf(RateLimitCall call, RateLimitRule rule) {
		try {
			RuleKey key = rule.key();
			if (key instanceof RuleKey.Param param) {
				return call.parameter(param.name());
			}
			if (key instanceof RuleKey.Principal) {
				return call.principal();
			}
			return call.resolveKey(rule);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Asks a rule's condition bean whether the rule applies to the call. An entry point whose rules come with the call
	 * ({@link RateLimitFlow#apply}: a gateway route's, a bean method's) has no condition beans: by default every rule
	 * applies.
	 * @param rule a rule that names a condition
	 * @return whether it applies ({@code null} counts as {@code true})
	 */
	default CompletionStage<@Nullable Boolean> condition(RateLimitRule rule) {
		return CompletableFuture.completedFuture(true);
	}

	/**
	 * Returns an attribute of the call, kept across the stages of the flow (before and after authentication).
	 * @param name the attribute's name
	 * @return its value, or {@code null}
	 */
	@Nullable Object getAttribute(String name);

	/**
	 * Sets an attribute of the call.
	 * @param name the attribute's name
	 * @param value its value
	 */
	void setAttribute(String name, Object value);

	/**
	 * Returns whether the flow may hold the caller's thread while Redis answers: then every stage completes before
	 * the flow returns.
	 * @return {@code true} on blocking stacks
	 */
	boolean mayBlock();

	/**
	 * Runs a task that may block (a plan resolver), away from a thread that must not block.
	 * @param task the task
	 * @return completes when the task has run
	 */
	default CompletableFuture<Void> blocking(Runnable task) {
		task.run();
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Asks for a decision with the call's observation current, so that the decisions' observations are its children.
	 * @param decision asks for the decision
	 * @param <T> what it returns
	 * @return what it returned
	 */
	default <T> T observed(Supplier<T> decision) {
		return decision.get();
	}

	/**
	 * Brings a decision back to where the call's work goes on (the event loop of its connection).
	 * @param decision the decision, possibly completed on another thread
	 * @param <T> the decision's type
	 * @return the decision, completed where the work goes on
	 */
	default <T> CompletableFuture<T> resume(CompletableFuture<T> decision) {
		return decision;
	}

	/**
	 * Takes the rate-limit headers of the rules applied to the call so far, for its response. A call without a
	 * response of its own (a bean method's, a partner call's) ignores them: its refusal carries its limits.
	 * @param headers the headers, replacing those of an earlier stage
	 */
	default void writeHeaders(HttpHeaders headers) {
	}

	/**
	 * Refuses the call: writes a request's whole response, or keeps the refusal for the entry point to answer
	 * (throw, close the call).
	 * @param rejection why it is refused
	 * @return completes when the refusal is written or kept
	 */
	CompletableFuture<Void> reject(RateLimitRejection rejection);

	/**
	 * Keeps what a call that was let through settles once it has ended: charges to settle by its outcome
	 * ({@code count-statuses} rules), reservations to adjust to its actual costs ({@code cost-from}) and slots of
	 * calls in flight to give back ({@code concurrency} rules), for its entry point to hand to
	 * {@link RateLimitFlow#end} however the call ended (completed, refused later, or abandoned). Called once per stage
	 * that let the call through with something to settle.
	 * @param after what to settle
	 */
	void settleAfter(AfterResponse after);

}

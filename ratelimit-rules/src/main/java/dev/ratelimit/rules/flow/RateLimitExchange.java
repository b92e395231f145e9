package dev.ratelimit.rules.flow;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;


import org.springframework.http.HttpHeaders;
import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;
import dev.ratelimit.rules.RateLimitRule;

/**
 * One request as its entry point holds it: what the {@link RateLimitFlow} reads of it and writes to it.
 * Only reading a request and its keys, writing its response and resuming the work are an entry point's
 * own; everything else is the flow's.
 *
 * @since 0.1.0
 */
public interface RateLimitExchange {

	/**
	 * Returns the request's method, such as {@code GET}.
	 * @return the method
	 */
	String method();

	/**
	 * Returns the request's path as rules match it.
	 * @return the path
	 */
	PathContainer path();

	/**
	 * Returns the request's path as the problem body names it, as the client wrote it.
	 * @return the path
	 */
	String target();

	/**
	 * Describes the request for debug logs.
	 * @return a description, such as {@code GET /api/orders}
	 */
	default String describe() {
		return method() + " " + target();
	}

	/**
	 * Returns the request's client address, as the {@code ip} key reads it (the trusted proxies' header).
	 * @return the address
	 */
	String clientAddress();

	/**
	 * Returns the address of the connection's peer.
	 * @return the address, or an empty string when unknown
	 */
	String remoteAddress();

	/**
	 * Returns the first value of a request header.
	 * @param name the header's name
	 * @return the value, or {@code null}
	 */
	@Nullable String header(String name);

	/**
	 * Reads the value of a rule's key that is neither the client address nor a header: a parameter, the
	 * principal's name, what a key-resolver bean returns.
	 * @param rule the rule
	 * @return the value, {@code null} when the request has none; failed when it cannot be read
	 */
	CompletionStage<@Nullable String> keyValue(RateLimitRule rule);

	/**
	 * Asks a rule's condition bean whether the rule applies to the request. An entry point whose rules come with
	 * the call ({@link RateLimitFlow#apply}: a gateway route's, a bean method's) has no condition beans: by default
	 * every rule applies.
	 * @param rule a rule that names a condition
	 * @return whether it applies ({@code null} counts as {@code true})
	 */
	default CompletionStage<@Nullable Boolean> condition(RateLimitRule rule) {
		return CompletableFuture.completedFuture(true);
	}

	/**
	 * Returns the handler the request is about to reach, for the rules of annotated handlers. An entry point whose
	 * rules come with the call has none: by default {@code null}.
	 * @param worthLookingUp {@code false} when no handler has rules of its own, so that a stack that must
	 * look the handler up need not
	 * @return the handler method, or {@code null} when the handler is not one
	 */
	default CompletableFuture<@Nullable HandlerMethod> handler(boolean worthLookingUp) {
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Returns an attribute of the request, kept across the stages of the flow (before and after
	 * authentication).
	 * @param name the attribute's name
	 * @return its value, or {@code null}
	 */
	@Nullable Object getAttribute(String name);

	/**
	 * Sets an attribute of the request.
	 * @param name the attribute's name
	 * @param value its value
	 */
	void setAttribute(String name, Object value);

	/**
	 * Returns whether the flow may hold the caller's thread while Redis answers: then every stage completes
	 * before the flow returns.
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
	 * Asks for a decision with the request's server observation current, so that the decisions'
	 * observations are its children.
	 * @param call asks for the decision
	 * @param <T> what the call returns
	 * @return what the call returned
	 */
	default <T> T observed(Supplier<T> call) {
		return call.get();
	}

	/**
	 * Brings a decision back to where the request's work goes on (the event loop of its connection).
	 * @param decision the decision, possibly completed on another thread
	 * @param <T> the decision's type
	 * @return the decision, completed where the work goes on
	 */
	default <T> CompletableFuture<T> resume(CompletableFuture<T> decision) {
		return decision;
	}

	/**
	 * Writes the rate-limit headers of the rules applied to the request so far.
	 * @param headers the headers, replacing those of an earlier stage
	 */
	void writeHeaders(HttpHeaders headers);

	/**
	 * Answers a refused request: writes its whole response.
	 * @param rejection why it is refused
	 * @return completes when the response is written
	 */
	CompletableFuture<Void> reject(RateLimitRejection rejection);

	/**
	 * Keeps what a request that was let through settles once its response is complete: charges to settle by its
	 * final status ({@code count-statuses} rules) and slots of requests in flight to give back ({@code concurrency}
	 * rules), with {@link RateLimitFlow#end}, however the request ended (completed, refused later, or abandoned
	 * when the client went away). Called once per stage that let the request through with something to settle.
	 * @param after what to settle
	 */
	void settleAfter(AfterResponse after);

}

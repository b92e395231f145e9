package dev.ratelimit.method.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.web.RateLimitExchange;
import dev.ratelimit.web.RateLimitRule;
import dev.ratelimit.web.RuleKey;
import dev.ratelimit.web.internal.DetachedExchange;

import org.springframework.expression.EvaluationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.PathContainer;

/**
 * One call of a {@link dev.ratelimit.RateLimited} bean method as the {@link dev.ratelimit.web.RateLimitFlow} reads
 * it: SpEL keys from the call's arguments, the other keys from the web request the call is made in (none outside
 * one), and a refusal kept for the interceptor to throw instead of written as a response.
 */
final class MethodExchange extends DetachedExchange {

	/**
	 * The client address of a call made outside a web request: every such call of a rule keyed by {@code ip}
	 * shares one budget.
	 */
	static final String NO_CLIENT = "none";

	private static final PathContainer NO_PATH = PathContainer.parsePath("/");

	private final LimitedMethod method;

	private final Supplier<EvaluationContext> context;

	private final @Nullable RateLimitExchange request;

	private final boolean mayBlock;

	private final Executor executor;

	MethodExchange(LimitedMethod method, Supplier<EvaluationContext> context, @Nullable RateLimitExchange request,
			boolean mayBlock, Executor executor) {
		this.method = method;
		this.context = context;
		this.request = request;
		this.mayBlock = mayBlock;
		this.executor = executor;
	}

	@Override
	public String method() {
		return "CALL";
	}

	@Override
	public PathContainer path() {
		// never matched: a method's rules come with the call
		return NO_PATH;
	}

	@Override
	public String target() {
		return this.method.description();
	}

	@Override
	public String describe() {
		return "call of " + this.method.description();
	}

	@Override
	public String clientAddress() {
		return (this.request != null) ? this.request.clientAddress() : NO_CLIENT;
	}

	@Override
	public String remoteAddress() {
		return (this.request != null) ? this.request.remoteAddress() : "";
	}

	@Override
	public @Nullable String header(String name) {
		return (this.request != null) ? this.request.header(name) : null;
	}

	@Override
	public CompletionStage<@Nullable String> keyValue(RateLimitRule rule) {
		if (rule.key() instanceof RuleKey.Expression) {
			// what the expression throws charges the client address, as a key resolver's failure does
			return CompletableFuture.completedFuture(this.method.key(rule, this.context.get()));
		}
		if (this.request != null) {
			return this.request.keyValue(rule);
		}
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		Object own = super.getAttribute(name);
		// what the request's own rules marked (a client address on the allow list) holds for its calls too
		return (own != null || this.request == null) ? own : this.request.getAttribute(name);
	}

	@Override
	public boolean mayBlock() {
		return this.mayBlock;
	}

	@Override
	public CompletableFuture<Void> blocking(Runnable task) {
		return this.mayBlock ? super.blocking(task) : CompletableFuture.runAsync(task, this.executor);
	}

	/**
	 * Brings a decision Redis answered back where the call goes on: the request's event loop when the call is made
	 * in a WebFlux request, else the application's task executor; never Redis's I/O thread, which every other
	 * decision waits on.
	 */
	@Override
	public <T> CompletableFuture<T> resume(CompletableFuture<T> decision) {
		if (this.mayBlock || decision.isDone()) {
			return decision;
		}
		if (this.request != null && !this.request.mayBlock()) {
			return this.request.resume(decision);
		}
		return decision.thenApplyAsync((value) -> value, this.executor);
	}

	@Override
	public void writeHeaders(HttpHeaders headers) {
		// a call has no response of its own; a refusal carries its limits in the exception
	}

}

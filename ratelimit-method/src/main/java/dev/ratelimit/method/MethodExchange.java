package dev.ratelimit.method;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.PlanSource;
import dev.ratelimit.rules.flow.RateLimitCall;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.DetachedCall;

import org.springframework.expression.EvaluationContext;

/**
 * One call of a {@link dev.ratelimit.RateLimited} bean method as the {@link dev.ratelimit.rules.flow.RateLimitFlow} reads
 * it: SpEL keys from the call's arguments, the other keys from the web request the call is made in (none outside
 * one), and a refusal kept for the interceptor to throw instead of written as a response.
 */
final class MethodExchange extends DetachedCall {

	private final LimitedMethod method;

	private final Supplier<EvaluationContext> context;

	/** What the call reads of the web request it is made in, read when the call was made; {@code null} outside one. */
	private final @Nullable RequestReads request;

	private final boolean mayBlock;

	private final Executor executor;

	/**
	 * Makes the exchange of a call; what it needs of the web request is read now, before the call returns to its
	 * caller: a decision that completes later (a future the handler does not wait for) may complete after the request
	 * has ended, and a servlet container recycles a request that has ended.
	 * @param inherited the attributes of the request that its calls carry ({@link RateLimitFlow#inherited})
	 */
	MethodExchange(LimitedMethod method, Supplier<EvaluationContext> context, @Nullable RateLimitCall request,
			Map<String, Object> inherited, boolean mayBlock, Executor executor) {
		this.method = method;
		this.context = context;
		this.request = (request != null) ? RequestReads.of(request, method.declaredRules()) : null;
		this.mayBlock = mayBlock;
		this.executor = executor;
		inherited.forEach(this::setAttribute);
	}

	@Override
	public String describe() {
		return "call of " + this.method.description();
	}

	/**
	 * Returns the client address of the web request the call is made in; {@code null} outside one: every such call of
	 * a rule keyed by {@code ip} shares one budget ({@link dev.ratelimit.rules.flow.RateLimitCall#NO_CLIENT}).
	 */
	@Override
	public @Nullable String clientAddress() {
		return (this.request != null) ? this.request.clientAddress() : null;
	}

	@Override
	public String remoteAddress() {
		return (this.request != null) ? this.request.remoteAddress() : "";
	}

	@Override
	public @Nullable String header(String name) {
		return (this.request != null) ? this.request.headers().get(name.toLowerCase(Locale.ROOT)) : null;
	}

	@Override
	public CompletionStage<@Nullable String> parameter(String name) {
		return read(new RuleKey.Param(name));
	}

	@Override
	public CompletionStage<@Nullable String> principal() {
		return read(new RuleKey.Principal());
	}

	@Override
	public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
		if (rule.key() instanceof RuleKey.Expression) {
			// what the expression throws charges the client address, as a key resolver's failure does
			return CompletableFuture.completedFuture(this.method.key(rule, this.context.get()));
		}
		return read(rule.key());
	}

	/** What the web request the call is made in gave for a key, read when the call was made; none outside one. */
	private CompletionStage<@Nullable String> read(RuleKey key) {
		CompletionStage<@Nullable String> read = (this.request != null) ? this.request.keys().get(key) : null;
		return (read != null) ? read : CompletableFuture.completedFuture(null);
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
		if (this.request != null && !this.request.live().mayBlock()) {
			// a WebFlux exchange: its event loop; nothing of the request is read
			return this.request.live().resume(decision);
		}
		return decision.thenApplyAsync((value) -> value, this.executor);
	}

	/**
	 * What a call reads of the web request it is made in, all read when the call is made: its client address and peer,
	 * the headers its rules read (keys, plans), and the keys that are neither (a parameter, the principal, a key
	 * resolver's). The request itself is kept only to resume a decision on a WebFlux exchange's event loop.
	 *
	 * @param live the request, never read again
	 * @param clientAddress its client address
	 * @param remoteAddress its peer's address
	 * @param headers the headers the rules read, by lower-case name
	 * @param keys the other keys, by key (read once for the rules that share one)
	 */
	record RequestReads(RateLimitCall live, @Nullable String clientAddress, String remoteAddress,
			Map<String, String> headers, Map<RuleKey, CompletionStage<@Nullable String>> keys) {

		static RequestReads of(RateLimitCall request, List<RateLimitRule> rules) {
			Map<String, String> headers = new HashMap<>(4);
			Map<RuleKey, CompletionStage<@Nullable String>> keys = new HashMap<>(4);
			for (RateLimitRule rule : rules) {
				if (rule.key() instanceof RuleKey.Header header) {
					read(request, header.name(), headers);
				}
				else if (!(rule.key() instanceof RuleKey.ClientAddress) && !(rule.key() instanceof RuleKey.Expression)) {
					// what it throws charges the client address, as when the flow reads it
					keys.computeIfAbsent(rule.key(), (key) -> RateLimitCall.keyOf(request, rule));
				}
				if (rule.plan() instanceof PlanSource.Header plan) {
					read(request, plan.name(), headers);
				}
			}
			return new RequestReads(request, request.clientAddress(), request.remoteAddress(), headers, keys);
		}

		private static void read(RateLimitCall request, String name, Map<String, String> headers) {
			String value = request.header(name);
			if (value != null) {
				headers.put(name.toLowerCase(Locale.ROOT), value);
			}
		}

	}

}

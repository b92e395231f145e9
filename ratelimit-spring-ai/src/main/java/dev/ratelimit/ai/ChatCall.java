package dev.ratelimit.ai;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.DetachedCall;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * One call to a chat model as the {@link dev.ratelimit.rules.flow.RateLimitFlow} reads it: {@code param:<name>} keys
 * from the advisor context the caller filled, {@code principal} from the principal source the advisor was given, a
 * {@link ChatKeyResolver} bean's key, or an expression's over the request; a refusal kept for the advisor to throw.
 * A call has no client address of its own: rules keyed by {@code ip} charge every call one budget.
 */
final class ChatCall extends DetachedCall {

	private final ChatClientRequest request;

	private final Map<String, ChatRule> rules;

	private final Supplier<@Nullable String> principal;

	private final Function<String, ChatKeyResolver> resolvers;

	private final boolean mayBlock;

	ChatCall(ChatClientRequest request, Map<String, ChatRule> rules, Supplier<@Nullable String> principal,
			Function<String, ChatKeyResolver> resolvers, boolean mayBlock) {
		this.request = request;
		this.rules = rules;
		this.principal = principal;
		this.resolvers = resolvers;
		this.mayBlock = mayBlock;
	}

	@Override
	public String describe() {
		return "call to a chat model";
	}

	/** Returns {@code null}: a call to a model has no client address of its own. */
	@Override
	public @Nullable String clientAddress() {
		return null;
	}

	/** Returns the advisor context's value of that name ({@code .advisors(a -> a.param(name, value))}). */
	@Override
	public CompletionStage<@Nullable String> parameter(String name) {
		Object value = this.request.context().get(name);
		return CompletableFuture.completedFuture((value != null) ? value.toString() : null);
	}

	@Override
	public CompletionStage<@Nullable String> principal() {
		return CompletableFuture.completedFuture(this.principal.get());
	}

	/** Returns a {@code bean:<name>} key's value, or an expression's, evaluated with {@code #request}, {@code #prompt} and {@code #context}. */
	@Override
	public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
		if (rule.key() instanceof RuleKey.Resolver) {
			// the rule of the provider's limits: one budget per model
			return CompletableFuture.completedFuture(ProviderLimits.model(this.request));
		}
		if (rule.key() instanceof RuleKey.Bean bean) {
			return CompletableFuture.completedFuture(this.resolvers.apply(bean.name()).resolve(this.request));
		}
		ChatRule chatRule = this.rules.get(rule.name());
		Expression expression = (chatRule != null) ? chatRule.key() : null;
		if (expression == null) {
			return super.resolveKey(rule);
		}
		SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().build();
		context.setVariable("request", this.request);
		context.setVariable("prompt", this.request.prompt());
		context.setVariable("context", this.request.context());
		Object value = expression.getValue(context, this.request);
		return CompletableFuture.completedFuture((value != null) ? value.toString() : null);
	}

	@Override
	public boolean mayBlock() {
		return this.mayBlock;
	}

}

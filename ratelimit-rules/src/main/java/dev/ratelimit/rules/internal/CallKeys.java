package dev.ratelimit.rules.internal;

import dev.ratelimit.rules.flow.ClientAddressResolver;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.internal.RateLimitEnforcer.RequestKeys;
import dev.ratelimit.rules.PlanSource;
import dev.ratelimit.rules.flow.RateLimitCall;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;

/**
 * The keys of one request under the rules that apply to it, read before its decision from its
 * {@link RateLimitCall}, so that the enforcer never waits for one.
 */
record CallKeys(RateLimitCall exchange, Map<RateLimitRule, Object> values, String clientAddress,
		ClientAddressResolver addresses) implements RequestKeys {

	/**
	 * Reads the key of every rule before the decision, so that the enforcer never waits for one: a value,
	 * none (the request lacks it), or the failure of reading it (which charges the client address). On an
	 * exchange that must not block, the plans resolver beans name are looked up away from its thread first.
	 */
	public static CompletableFuture<RequestKeys> read(RateLimitCall exchange, List<RateLimitRule> applicable,
			String clientAddress, RuleBudgets budgets, ClientAddressResolver addresses) {
		Map<RateLimitRule, Object> values = new IdentityHashMap<>();
		List<CompletableFuture<?>> pending = new ArrayList<>(0);
		boolean plans = false;
		for (RateLimitRule rule : applicable) {
			plans |= rule.plan() instanceof PlanSource.Bean;
			RuleKey key = rule.key();
			if (key instanceof RuleKey.ClientAddress || key instanceof RuleKey.Header) {
				// read at once
				String found = (key instanceof RuleKey.Header header) ? exchange.header(header.name()) : clientAddress;
				if (found != null) {
					values.put(rule, found);
				}
				continue;
			}
			CompletableFuture<? extends @Nullable String> value = RateLimitCall.keyOf(exchange, rule).toCompletableFuture();
			if (value.isDone() && !value.isCompletedExceptionally()) {
				String found = value.join();
				if (found != null) {
					values.put(rule, found);
				}
				continue;
			}
			pending.add(value.handle((found, failure) -> {
				if (failure != null) {
					values.put(rule, keyFailure(failure));
				}
				else if (found != null) {
					values.put(rule, found);
				}
				return null;
			}));
		}
		RequestKeys keys = new CallKeys(exchange, values, clientAddress, addresses);
		if (pending.isEmpty() && (!plans || exchange.mayBlock())) {
			// a blocking exchange's plans are looked up as the rules are decided
			return CompletableFuture.completedFuture(keys);
		}
		CompletableFuture<Void> read = CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
		if (exchange.mayBlock()) {
			return read.thenApply((done) -> keys);
		}
		// a plan resolver may read a database: it is asked away from the event loop, and answers from memory then
		for (RateLimitRule rule : applicable) {
			read = read.thenCompose((done) -> (values.get(rule) instanceof String value
					&& budgets.needsPlanLookUp(rule, value))
							? exchange.blocking(() -> budgets.lookUpPlan(rule, value))
							: CompletableFuture.completedFuture(null));
		}
		return read.thenApply((done) -> keys);
	}

	private static RuntimeException keyFailure(Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
				? failure.getCause() : failure;
		return (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
	}

	@Override
	public @Nullable String keyValue(RateLimitRule rule) {
		Object value = this.values.get(rule);
		if (value instanceof RuntimeException failure) {
			throw failure;
		}
		return (String) value;
	}

	@Override
	public @Nullable String header(String name) {
		return this.exchange.header(name);
	}

	@Override
	public boolean fromTrustedProxy() {
		// asked only by a rule with a plan header
		return this.addresses.isTrustedProxy(this.exchange.remoteAddress());
	}

}

package dev.ratelimit.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.DetachedCall;

/**
 * One call out to a partner as the {@link dev.ratelimit.rules.flow.RateLimitFlow} reads it: every call of a partner charges
 * one budget, the partner's, whoever makes it; a refusal is kept for the budget to wait or fail.
 */
final class ClientExchange extends DetachedCall {

	private final String partner;

	private final PartnerCall call;

	private final boolean mayBlock;

	ClientExchange(String partner, PartnerCall call, boolean mayBlock) {
		this.partner = partner;
		this.call = call;
		this.mayBlock = mayBlock;
	}

	@Override
	public String describe() {
		return this.call.describe();
	}

	/**
	 * Returns {@code null}: a call out has no client of its own, its budgets are the partner's, whoever makes it
	 * ({@link dev.ratelimit.rules.flow.RateLimitCall#NO_CLIENT}).
	 */
	@Override
	public @Nullable String clientAddress() {
		return null;
	}

	/** Returns the partner's name: a partner's rule is keyed by it ({@code resolver}). */
	@Override
	public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
		return CompletableFuture.completedFuture(this.partner);
	}

	@Override
	public boolean mayBlock() {
		return this.mayBlock;
	}

}

package dev.ratelimit.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.server.PathContainer;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.DetachedExchange;

/**
 * One call out to a partner as the {@link dev.ratelimit.rules.flow.RateLimitFlow} reads it: every call of a partner charges
 * one budget, the partner's, whoever makes it; a refusal is kept for the budget to wait or fail.
 */
final class ClientExchange extends DetachedExchange {

	/** The client address of every call out: budgets are the partner's, not a caller's. */
	static final String NO_CLIENT = "none";

	private final String partner;

	private final String method;

	private final PartnerUrl url;

	private final boolean mayBlock;

	ClientExchange(String partner, String method, PartnerUrl url, boolean mayBlock) {
		this.partner = partner;
		this.method = method;
		this.url = url;
		this.mayBlock = mayBlock;
	}

	@Override
	public String method() {
		return this.method;
	}

	@Override
	public PathContainer path() {
		return PathContainer.parsePath(this.url.path());
	}

	@Override
	public String target() {
		return this.url.toString();
	}

	@Override
	public String describe() {
		return "call to " + target();
	}

	@Override
	public String clientAddress() {
		return NO_CLIENT;
	}

	@Override
	public CompletionStage<@Nullable String> keyValue(RateLimitRule rule) {
		return CompletableFuture.completedFuture(this.partner);
	}

	@Override
	public boolean mayBlock() {
		return this.mayBlock;
	}

	@Override
	public void writeHeaders(HttpHeaders headers) {
		// a call out has no response of ours to write them to
	}

}

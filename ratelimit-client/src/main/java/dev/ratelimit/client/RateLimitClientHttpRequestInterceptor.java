package dev.ratelimit.client;

import java.io.IOException;


import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Takes a permit from a partner's budget ({@code ratelimit.clients.<name>.*}) before each call of a
 * {@code RestClient} (or HTTP interface client) whose URL the budget covers (whatever its spelling: host case, a
 * trailing dot, a Unicode host, an IPv6 literal, dot segments, {@code //}, escaped unreserved characters), waiting for one up to its
 * {@code max-wait}; a call that gets none fails with {@link dev.ratelimit.RateLimitExceededException} and never
 * reaches the partner. The partner's answer then teaches the budget: a {@code 429} or {@code 503} with
 * {@code Retry-After}, or a {@code RateLimit} header with {@code r=0}, blocks it on every instance for that long.
 * The starter adds it to every {@code RestClient.Builder} of Spring Boot.
 *
 * @since 0.1.0
 */
public final class RateLimitClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

	private final PartnerBudgets budgets;

	/**
	 * Creates the interceptor.
	 * @param budgets the partners' budgets
	 */
	public RateLimitClientHttpRequestInterceptor(PartnerBudgets budgets) {
		this.budgets = budgets;
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		PartnerUrl url = PartnerUrl.of(request.getURI());
		PartnerBudget budget = this.budgets.find(url);
		if (budget == null) {
			return execution.execute(request, body);
		}
		budget.take(url);
		ClientHttpResponse response = execution.execute(request, body);
		budget.learn(response.getStatusCode().value(), response.getHeaders());
		return response;
	}

}

package dev.ratelimit.client;

import java.time.Duration;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.http.HttpHeaders;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * Takes a permit from a partner's budget ({@code ratelimit.clients.<name>.*}) before each call of a
 * {@code WebClient} (or HTTP interface client on one) whose URL the budget covers, as
 * {@link RateLimitClientHttpRequestInterceptor} does, without holding a thread: neither while Redis answers nor while
 * the call waits for a permit. A call that gets none within {@code max-wait} fails with
 * {@link dev.ratelimit.RateLimitExceededException}. The starter adds it to every {@code WebClient.Builder} of
 * Spring Boot.
 *
 * @since 0.1.0
 */
public final class RateLimitExchangeFilterFunction implements ExchangeFilterFunction {

	private final PartnerBudgets budgets;

	/**
	 * Creates the filter.
	 * @param budgets the partners' budgets
	 */
	public RateLimitExchangeFilterFunction(PartnerBudgets budgets) {
		this.budgets = budgets;
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		PartnerUrl url = PartnerUrl.of(request.url());
		PartnerBudget budget = this.budgets.find(url);
		if (budget == null) {
			return next.exchange(request);
		}
		return Mono.fromFuture(() -> budget.takeAsync(url))
			.then(Mono.defer(() -> next.exchange(request)))
			.flatMap((response) -> learn(budget, response.statusCode().value(), response.headers().asHttpHeaders())
				.thenReturn(response)
				// cancelled while the budget is blocked: nobody will read the body, whose connection goes back
				.doOnCancel(() -> response.releaseBody().subscribe()));
	}

	/** Blocks the budget for what the answer asks, away from the caller's thread; at once when it asks nothing. */
	private static Mono<Void> learn(PartnerBudget budget, int status, HttpHeaders headers) {
		Duration wait = budget.waitAskedFor(status, headers);
		if (wait == null) {
			return Mono.empty();
		}
		return Mono.<Void>fromRunnable(() -> budget.learned(Integer.toString(status), wait))
			.subscribeOn(Schedulers.boundedElastic());
	}

}

/**
 * Rate limits on the calls this application makes to partners ({@code ratelimit.clients.*}): a
 * {@link org.springframework.http.client.ClientHttpRequestInterceptor} for RestClient and HTTP interface clients, an
 * {@link org.springframework.web.reactive.function.client.ExchangeFilterFunction} for WebClient, each call taking a
 * permit from its partner's budget ({@link dev.ratelimit.client.PartnerBudgets}) that every instance shares, and the
 * partner's own refusals blocking it. The rest (a partner's budget, its URL patterns, the exchange of one call, the
 * metrics of waits) is package-private.
 */
@NullMarked
package dev.ratelimit.client;

import org.jspecify.annotations.NullMarked;

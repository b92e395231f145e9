/**
 * The partner-call side of the request flow: a partner's budget (its rule, URL patterns, waiting for permits,
 * learning from the partner's answers), the exchange of one outgoing call, the metrics of waits. Not API: any release
 * may change it.
 */
@NullMarked
package dev.ratelimit.client.internal;

import org.jspecify.annotations.NullMarked;

/**
 * The WebFlux stack's side of the request flow: its exchange (reading an exchange and its keys without blocking,
 * writing the headers and the refusal, settling after the response) and the hop back to the connection's event
 * loop, behind the public web filters. Not API: any release may change it.
 */
@NullMarked
package dev.ratelimit.web.reactive.internal;

import org.jspecify.annotations.NullMarked;

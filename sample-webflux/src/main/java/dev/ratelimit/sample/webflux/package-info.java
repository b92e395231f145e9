/**
 * The WebFlux sample: rules from properties, a reactive key resolver, an annotated handler and the
 * asynchronous limiter API, on Netty.
 */
@NullMarked
package dev.ratelimit.sample.webflux;

import org.jspecify.annotations.NullMarked;

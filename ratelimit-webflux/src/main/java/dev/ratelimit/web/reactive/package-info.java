/**
 * Rate limiting for Spring WebFlux: the web filters that apply the rules to exchanges without blocking
 * a thread, the support they share, the keys they read from exchanges and the conditions they test.
 */
@NullMarked
package dev.ratelimit.web.reactive;

import org.jspecify.annotations.NullMarked;

/**
 * Rate limiting for Spring WebFlux: the web filters that apply the rules to exchanges without blocking
 * a thread, the keys they read from them and the responses they write.
 */
@NullMarked
package dev.ratelimit.web.reactive;

import org.jspecify.annotations.NullMarked;

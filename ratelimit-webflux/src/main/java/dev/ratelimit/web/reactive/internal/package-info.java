/**
 * The WebFlux stack's parts behind its public web filters: the paths of functional routes. Not API: any release may
 * change it.
 */
@NullMarked
package dev.ratelimit.web.reactive.internal;

import org.jspecify.annotations.NullMarked;

/**
 * The web stacks' part of the {@code ratelimit.*} properties ({@code ratelimit.filter.*}), shared by the servlet and
 * the WebFlux auto-configurations.
 */
@NullMarked
package dev.ratelimit.autoconfigure.web;

import org.jspecify.annotations.NullMarked;

/**
 * The auto-configuration of ratelimit's webflux module.
 */
@NullMarked
package dev.ratelimit.autoconfigure.webflux;

import org.jspecify.annotations.NullMarked;

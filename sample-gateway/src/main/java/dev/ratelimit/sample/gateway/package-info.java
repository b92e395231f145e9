/**
 * A Spring Cloud Gateway whose routes ratelimit limits.
 */
@NullMarked
package dev.ratelimit.sample.gateway;

import org.jspecify.annotations.NullMarked;

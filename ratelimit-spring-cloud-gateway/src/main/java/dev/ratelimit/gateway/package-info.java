/**
 * The rate limiter of Spring Cloud Gateway's {@code RequestRateLimiter} filter on ratelimit's Redis limiters,
 * configured per route through the filter's {@code ratelimit.*} args, and its auto-configuration.
 */
@NullMarked
package dev.ratelimit.gateway;

import org.jspecify.annotations.NullMarked;

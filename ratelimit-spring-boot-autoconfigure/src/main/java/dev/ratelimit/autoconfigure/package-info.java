/**
 * Auto-configuration for ratelimit: the Redis limiters, the Spring MVC interceptor and their
 * {@code ratelimit.*} properties.
 */
@NullMarked
package dev.ratelimit.autoconfigure;

import org.jspecify.annotations.NullMarked;

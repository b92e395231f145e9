/**
 * Not API: the interceptor of {@link dev.ratelimit.RateLimited} bean methods, their SpEL keys and costs, their
 * fallbacks and their reactive return types.
 */
@NullMarked
package dev.ratelimit.method.internal;

import org.jspecify.annotations.NullMarked;

/**
 * Rate limits on the methods of any Spring bean: {@link dev.ratelimit.RateLimited} applied around the call, on the
 * same request flow as the web stacks, by the {@link dev.ratelimit.method.MethodRateLimitInterceptor} that the
 * {@link dev.ratelimit.method.RateLimitedMethodPostProcessor} puts on limited beans. The rest (SpEL keys and costs,
 * fallbacks, reactive return types) is package-private.
 */
@NullMarked
package dev.ratelimit.method;

import org.jspecify.annotations.NullMarked;

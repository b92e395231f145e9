/**
 * Rate limits on the methods of any Spring bean: {@link dev.ratelimit.RateLimited} applied around the call, on the
 * same request flow as the web stacks.
 */
@NullMarked
package dev.ratelimit.method;

import org.jspecify.annotations.NullMarked;

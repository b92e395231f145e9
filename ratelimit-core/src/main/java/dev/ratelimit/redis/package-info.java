/**
 * Rate limiters backed by Redis, each decision one atomic Lua script executed with {@code EVALSHA}.
 */
@NullMarked
package dev.ratelimit.redis;

import org.jspecify.annotations.NullMarked;

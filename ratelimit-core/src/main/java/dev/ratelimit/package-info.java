/**
 * The rate limiter API: limits, decisions and the algorithms that take them.
 */
@NullMarked
package dev.ratelimit;

import org.jspecify.annotations.NullMarked;

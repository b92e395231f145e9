/**
 * JMH benchmarks and measurements of the Redis rate limiters against a real local Redis, side by side
 * with Bucket4j, Redisson, the seed article's code and the physical limit of the server.
 */
@NullMarked
package dev.ratelimit.benchmarks;

import org.jspecify.annotations.NullMarked;

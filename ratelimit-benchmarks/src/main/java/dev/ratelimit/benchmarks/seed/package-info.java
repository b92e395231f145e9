/**
 * The seed article's two limiters, copied as written (only the package and imports added): the naive
 * baseline of the benchmarks.
 */
@NullMarked
package dev.ratelimit.benchmarks.seed;

import org.jspecify.annotations.NullMarked;

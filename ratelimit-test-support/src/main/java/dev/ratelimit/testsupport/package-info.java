/**
 * Finds or starts a real Redis server for the project's tests and samples, without Docker if need be.
 */
@NullMarked
package dev.ratelimit.testsupport;

import org.jspecify.annotations.NullMarked;

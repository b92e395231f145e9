/**
 * The auto-configuration of ratelimit's method module.
 */
@NullMarked
package dev.ratelimit.autoconfigure.method;

import org.jspecify.annotations.NullMarked;

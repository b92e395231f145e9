/**
 * The auto-configuration of ratelimit's actuate module.
 */
@NullMarked
package dev.ratelimit.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;

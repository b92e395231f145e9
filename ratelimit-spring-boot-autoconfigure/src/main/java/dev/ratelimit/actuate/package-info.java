/**
 * The {@code ratelimit} actuator endpoint: rules in force, a key's state, and resetting a key.
 */
@NullMarked
package dev.ratelimit.actuate;

import org.jspecify.annotations.NullMarked;

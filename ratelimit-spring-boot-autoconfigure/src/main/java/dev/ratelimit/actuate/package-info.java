/**
 * The {@code ratelimit} actuator endpoint (rules in force, a key's state, and resetting a key) and health contributor.
 */
@NullMarked
package dev.ratelimit.actuate;

import org.jspecify.annotations.NullMarked;

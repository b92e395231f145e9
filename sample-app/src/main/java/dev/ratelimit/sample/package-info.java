/**
 * A sample application that shows ratelimit at work.
 */
@NullMarked
package dev.ratelimit.sample;

import org.jspecify.annotations.NullMarked;

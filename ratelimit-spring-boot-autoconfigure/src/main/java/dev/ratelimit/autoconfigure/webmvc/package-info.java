/**
 * The auto-configuration of ratelimit's webmvc module.
 */
@NullMarked
package dev.ratelimit.autoconfigure.webmvc;

import org.jspecify.annotations.NullMarked;

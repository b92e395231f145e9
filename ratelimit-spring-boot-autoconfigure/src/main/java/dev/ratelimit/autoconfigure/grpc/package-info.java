/**
 * The auto-configuration of ratelimit's grpc module.
 */
@NullMarked
package dev.ratelimit.autoconfigure.grpc;

import org.jspecify.annotations.NullMarked;

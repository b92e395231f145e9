/**
 * A gRPC service rate limited by ratelimit: rules on full method names in {@code application.properties}, keyed
 * by an API key in the call's metadata and by the peer's address.
 */
@NullMarked
package dev.ratelimit.sample.grpc;

import org.jspecify.annotations.NullMarked;

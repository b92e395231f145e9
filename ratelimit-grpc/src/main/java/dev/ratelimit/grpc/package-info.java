/**
 * Rate limits on gRPC services: the rules of {@code ratelimit.rules.*} whose paths match a call's full method name,
 * applied by global server interceptors of Spring gRPC on the same request flow as the web stacks, through the
 * support they share. The rest (a call's exchange, the statuses and trailers of refusals, the charges of each message
 * of a streaming call) is package-private.
 */
@NullMarked
package dev.ratelimit.grpc;

import org.jspecify.annotations.NullMarked;

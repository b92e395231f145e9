/**
 * Rate limits on gRPC services: the rules of {@code ratelimit.rules.*} whose paths match a call's full method name,
 * applied by global server interceptors of Spring gRPC on the same request flow as the web stacks.
 */
@NullMarked
package dev.ratelimit.grpc;

import org.jspecify.annotations.NullMarked;

/**
 * The gRPC side of the request flow: its exchange (reading a call's metadata, peer and principal), the statuses
 * and trailers of refusals, the settling of {@code count-statuses} charges when a call closes. Not API: any release
 * may change it.
 */
@NullMarked
package dev.ratelimit.grpc.internal;

import org.jspecify.annotations.NullMarked;

/**
 * The partner calls' part of the {@code ratelimit.*} properties ({@code ratelimit.clients.*}).
 */
@NullMarked
package dev.ratelimit.autoconfigure.client;

import org.jspecify.annotations.NullMarked;

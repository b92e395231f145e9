/**
 * What the web layer's classes share that is no application's to use: address lists and CIDR blocks,
 * content negotiation of the rejection body, the settlement of {@code count-statuses} charges, and the
 * observers the auto-configuration registers. Not API: any release may change it.
 */
@NullMarked
package dev.ratelimit.web.internal;

import org.jspecify.annotations.NullMarked;

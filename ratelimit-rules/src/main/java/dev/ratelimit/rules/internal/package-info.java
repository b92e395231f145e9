/**
 * The rule engine behind {@link dev.ratelimit.rules.flow.RateLimitFlow}: the rule registry, the enforcer that decides
 * a call, budgets, plans, verdicts and their headers, client addresses and address lists, the default rejection body
 * and its content negotiation, the settlement of what a call took, the slots' leases, and the observers the
 * auto-configuration registers. Assembled by {@link dev.ratelimit.rules.internal.RateLimitEngine}, its one public
 * type, which hands its parts out by their types of {@code dev.ratelimit.rules.flow}; everything else is
 * package-private. Not API: any release may change it.
 */
@NullMarked
package dev.ratelimit.rules.internal;

import org.jspecify.annotations.NullMarked;

/**
 * What the entry points share that is no application's to use: the rule registry, the enforcer that decides a
 * request, budgets, plans, verdicts and their headers, client addresses, address lists and CIDR blocks, the
 * default rejection body and its content negotiation, the settlement of {@code count-statuses} charges, and the
 * observers the auto-configuration registers. Not API: any release may change it.
 */
@NullMarked
package dev.ratelimit.web.internal;

import org.jspecify.annotations.NullMarked;

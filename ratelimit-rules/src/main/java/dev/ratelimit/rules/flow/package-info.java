/**
 * What an entry point may use of the rule engine, whichever technology it serves: the
 * {@link dev.ratelimit.rules.flow.RateLimitFlow} it drives, the {@link dev.ratelimit.rules.flow.RateLimitCall} it
 * supplies (a {@link dev.ratelimit.rules.flow.RateLimitRequest} when property rules match it by path;
 * {@link dev.ratelimit.rules.flow.DetachedCall}, the base of calls that are no web request), what a
 * call settles once complete, and the contracts an application implements: the rejection handler, the observer, and
 * the context a handler reads; and what the auto-configuration and the actuator endpoint read of the engine: the
 * {@link dev.ratelimit.rules.flow.RateLimitRuleRegistry} of the rules in force and the
 * {@link dev.ratelimit.rules.flow.RateLimitPlanCache}.
 */
@NullMarked
package dev.ratelimit.rules.flow;

import org.jspecify.annotations.NullMarked;

/**
 * Rate limits on the calls this application makes to chat models through Spring AI's {@code ChatClient}: token
 * budgets ({@code ratelimit.ai.rules.*}) shared by every instance, applied by {@link dev.ratelimit.ai.RateLimitAdvisor},
 * an advisor that reserves an estimate of a call's tokens before the model is called and settles the tokens the
 * provider reports. The rest (one call as the flow reads it, the estimate, the settlement) is package-private.
 */
@NullMarked
package dev.ratelimit.ai;

import org.jspecify.annotations.NullMarked;

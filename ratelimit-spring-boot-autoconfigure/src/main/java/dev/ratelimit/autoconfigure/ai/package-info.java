/**
 * The auto-configuration of token budgets for Spring AI's {@code ChatClient} ({@code ratelimit.ai.rules.*}).
 */
@NullMarked
package dev.ratelimit.autoconfigure.ai;

import org.jspecify.annotations.NullMarked;

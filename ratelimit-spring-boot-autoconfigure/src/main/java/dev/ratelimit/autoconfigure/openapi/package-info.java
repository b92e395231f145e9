/**
 * The limits in the API's own description: springdoc's OpenAPI document tells each limited operation's 429, its
 * rate-limit headers and its policies ({@code ratelimit.openapi.*}).
 */
@NullMarked
package dev.ratelimit.autoconfigure.openapi;

import org.jspecify.annotations.NullMarked;

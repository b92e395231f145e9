/**
 * Test support for applications that use ratelimit: {@link dev.ratelimit.test.AutoConfigureRateLimit} on a
 * {@code @SpringBootTest} gives the application a real Redis, resets every budget before each test method and, on
 * request, a clock the test moves ({@link dev.ratelimit.test.RateLimitTestClock}).
 */
@NullMarked
package dev.ratelimit.test;

import org.jspecify.annotations.NullMarked;

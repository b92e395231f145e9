/**
 * Rate limiting for Spring MVC: the interceptor, the rules it applies, whose budget a request charges,
 * and the responses it writes.
 */
@NullMarked
package dev.ratelimit.web.servlet;

import org.jspecify.annotations.NullMarked;

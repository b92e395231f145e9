/**
 * Rate limiting for Spring MVC: the interceptor that applies the rules to servlet requests, the keys it
 * reads from them and the responses it writes.
 */
@NullMarked
package dev.ratelimit.web.servlet;

import org.jspecify.annotations.NullMarked;

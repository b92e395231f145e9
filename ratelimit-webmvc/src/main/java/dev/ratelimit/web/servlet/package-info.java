/**
 * Rate limiting for Spring MVC: the filter and the interceptor that apply the rules to servlet requests, the
 * support they share, the keys they read from requests and the conditions they test.
 */
@NullMarked
package dev.ratelimit.web.servlet;

import org.jspecify.annotations.NullMarked;

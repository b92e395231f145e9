/**
 * The servlet stack's side of the request flow: its exchange (reading a request and its keys, writing the
 * headers and the refusal, settling after the response) and the writer of rejection bodies, behind the public
 * filter and interceptor. Not API: any release may change it.
 */
@NullMarked
package dev.ratelimit.web.servlet.internal;

import org.jspecify.annotations.NullMarked;

/**
 * Rate limiting for every web stack: the rules and their registry, the decisions taken for a request,
 * the rate-limit headers and the rejection contract. Nothing here knows a servlet or reactive type.
 */
@NullMarked
package dev.ratelimit.web;

import org.jspecify.annotations.NullMarked;

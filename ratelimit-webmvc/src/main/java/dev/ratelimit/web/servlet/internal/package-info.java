/**
 * What the servlet stack's auto-configuration reads of an application's functional routes: their paths. Not API:
 * any release may change it.
 */
@NullMarked
package dev.ratelimit.web.servlet.internal;

import org.jspecify.annotations.NullMarked;

/**
 * The rule model, whichever entry point applies it: {@link dev.ratelimit.rules.RateLimitRule} and its typed values
 * (whose budget, the plan, a missing key, a calendar period, the statuses and costs a rule counts), and
 * {@link dev.ratelimit.rules.RateLimitRuleFactory}, which reads a rule's strings (properties, annotations, route
 * args) once into a rule. No Spring Boot and no web stack: spring-web's path patterns only.
 */
@NullMarked
package dev.ratelimit.rules;

import org.jspecify.annotations.NullMarked;

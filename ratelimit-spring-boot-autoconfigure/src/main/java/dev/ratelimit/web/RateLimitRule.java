package dev.ratelimit.web;

import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * One rule in force: which requests it applies to, the limit, the algorithm, whose budget a request
 * charges and how many permits it takes. Build one with {@link RateLimitRuleFactory}.
 *
 * @param name the rule's name, used in headers and in Redis keys
 * @param paths the path patterns the rule applies to; empty for a rule attached to a handler
 * @param methods the HTTP methods it applies to, empty for all; {@code GET} covers {@code HEAD}, which
 * Spring MVC serves with the same handler
 * @param limits the limits, charged all or nothing; one in the short form
 * @param algorithm the algorithm
 * @param key the key as configured, for example {@code header:X-Api-Key}
 * @param missingKey what the rule does with a request that lacks its key
 * @param cost permits one request takes
 * @param source where the rule is defined, for messages: {@code ratelimit.rules.<name>} or the
 * annotated element
 * @param shadow whether the rule only observes: decisions are taken, counted and sent as headers, but no
 * request is refused
 * @param allowKeys key values exempt from the rule (such as internal API keys): their requests skip it,
 * without a Redis call
 */
public record RateLimitRule(String name, List<PathPattern> paths, Set<String> methods, List<RateLimit> limits,
		Algorithm algorithm, String key, MissingKey missingKey, long cost, String source, boolean shadow,
		Set<String> allowKeys) {

	/**
	 * Returns this rule with key values exempt from it.
	 * @param keys the exempt key values
	 * @return the rule
	 */
	public RateLimitRule withAllowKeys(Set<String> keys) {
		return new RateLimitRule(this.name, this.paths, this.methods, this.limits, this.algorithm, this.key,
				this.missingKey, this.cost, this.source, this.shadow, Set.copyOf(keys));
	}

	/**
	 * Returns whether a key value is exempt from the rule.
	 * @param keyValue the value the request's key resolves to, or {@code null}
	 * @return {@code true} when the rule lists it among its {@code allow-keys}
	 */
	public boolean exempts(@Nullable String keyValue) {
		return keyValue != null && !this.allowKeys.isEmpty() && this.allowKeys.contains(keyValue);
	}

	/**
	 * Returns whether the rule applies to a request of this path and method.
	 * @param path the path within the application
	 * @param method the HTTP method
	 * @return {@code true} when a pattern matches and the method is among the rule's
	 */
	public boolean matches(PathContainer path, String method) {
		if (!this.methods.isEmpty() && !this.methods.contains(method)
				&& !("HEAD".equals(method) && this.methods.contains("GET"))) {
			return false;
		}
		for (PathPattern pattern : this.paths) {
			if (pattern.matches(path)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Returns the policy name of one of the rule's limits in headers and problem responses: the rule's
	 * name when it has one limit, else the name and the window, such as {@code search-1s}.
	 * @param index the limit's index
	 * @return the policy name
	 */
	public String policyName(int index) {
		return (this.limits.size() == 1) ? this.name : this.name + "-" + this.limits.get(index).windowLabel();
	}

	/**
	 * Describes the rule in one line, for the startup log.
	 * @return the description
	 */
	public String describe() {
		StringBuilder text = new StringBuilder("Rate limit '").append(this.name).append("': ");
		for (int i = 0; i < this.limits.size(); i++) {
			RateLimit limit = this.limits.get(i);
			text.append((i > 0) ? " and " : "").append(limit.limit()).append(" per ").append(limit.windowLabel());
			if (limit.burst() != limit.limit()) {
				text.append(" (burst ").append(limit.burst()).append(')');
			}
		}
		text.append(", ").append(this.algorithm.id()).append(", on ");
		if (this.paths.isEmpty()) {
			text.append(this.source);
		}
		else {
			text.append(this.paths.stream().map(PathPattern::getPatternString).toList())
				.append(this.methods.isEmpty() ? " (all methods)" : " " + this.methods.stream().sorted().toList());
		}
		text.append(", key ").append(this.key).append(", cost ").append(this.cost);
		return this.shadow ? text.append(", shadow mode (observes, never refuses)").toString() : text.toString();
	}

	/**
	 * Returns the kind of key, the part of {@link #key()} before any {@code :}.
	 * @return {@code ip}, {@code header}, {@code param}, {@code principal} or {@code bean}; {@code resolver} for a
	 * rule whose key a resolver of its own finds (a gateway route's)
	 */
	public String keyKind() {
		int colon = this.key.indexOf(':');
		return (colon < 0) ? this.key : this.key.substring(0, colon);
	}

	/**
	 * Returns whether the rule charges the authenticated user, so that it applies only after
	 * authentication.
	 * @return {@code true} for a rule keyed by {@code principal}
	 */
	public boolean needsAuthentication() {
		return this.key.equals("principal");
	}

	/**
	 * Returns what the key names, the part of {@link #key()} after the {@code :}: a header, a parameter
	 * or a bean.
	 * @return the name, or {@code null} for {@code ip} and {@code principal}
	 */
	public @Nullable String keyArgument() {
		int colon = this.key.indexOf(':');
		return (colon < 0) ? null : this.key.substring(colon + 1).strip();
	}

	/**
	 * Returns the budget id of a request under this rule: {@code <rule>:<kind>:<value>}, or
	 * {@code <rule>:ip:<address>} when the key has no value for the request.
	 * @param keyValue the value the key resolver found, or {@code null}
	 * @param clientAddress the request's client address
	 * @return the id handed to the limiter
	 */
	public String budgetId(@Nullable String keyValue, String clientAddress) {
		if (keyValue == null || keyValue.isBlank()) {
			return this.name + ":ip:" + clientAddress;
		}
		return this.name + ":" + keyKind() + ":" + keyValue;
	}

}

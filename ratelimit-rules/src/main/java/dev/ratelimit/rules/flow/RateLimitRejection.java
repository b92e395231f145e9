package dev.ratelimit.rules.flow;

import java.util.ArrayList;
import java.util.List;

import org.springframework.util.Assert;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;

/**
 * A request the rules refused, as the {@link RateLimitRejectionHandler} sees it: one of five cases,
 * each a record of its own. A handler tells them apart with {@code instanceof}:
 * {@link Limited} (a limit refused it: 429), {@link Unavailable} (no decision could be reached under
 * {@code fail-closed}: 503), {@link MissingKey} (the request lacks the key of a rule with
 * {@code missing-key=reject}: 400), {@link Denied} (the client address is on
 * {@code ratelimit.deny.addresses}: 403) and {@link Throttled} (a limit of the application's own JVM, Spring
 * Framework's {@code @ConcurrencyLimit}, refused a call its handler made: 503, or 429 when configured).
 *
 * @since 0.1.0
 */
public sealed interface RateLimitRejection {

	/**
	 * Returns the request's HTTP method; empty for a call that is no request (a bean method's, a partner call).
	 * @return the method
	 */
	String method();

	/**
	 * Returns the request's path as sent, the context path included; for a call that is no request, its description
	 * (such as {@code call of OrderService.place(..)}).
	 * @return the path
	 */
	String path();

	/**
	 * Returns the limits that refused the request, with their decisions; empty for every case but
	 * {@link Limited}.
	 * @return the violated limits
	 */
	default List<AppliedLimit> violated() {
		return List.of();
	}

	/**
	 * Returns how long the client should wait before trying again, in whole seconds (as
	 * {@code Retry-After} says); zero when waiting would not help.
	 * @return the seconds
	 */
	default long retryAfterSeconds() {
		return 0;
	}

	/**
	 * Returns the rejection of a request from a denied client address.
	 * @param method the request's HTTP method
	 * @param path the request's path
	 * @return the rejection
	 */
	static RateLimitRejection denied(String method, String path) {
		return new Denied(method, path);
	}

	/**
	 * Limits refused the request (429).
	 *
	 * @param method the request's HTTP method
	 * @param path the request's path
	 * @param violated the limits that refused it, with their decisions; never empty
	 * @param retryAfterSeconds when the request could be granted, in whole seconds
	 */
	record Limited(String method, String path, List<AppliedLimit> violated, long retryAfterSeconds)
			implements RateLimitRejection {

		public Limited {
			Assert.notEmpty(violated, "violated must not be empty");
			violated = List.copyOf(violated);
		}

	}

	/**
	 * No decision could be reached and {@code ratelimit.failure-mode} is {@code fail-closed} (503).
	 *
	 * @param method the request's HTTP method
	 * @param path the request's path
	 */
	record Unavailable(String method, String path) implements RateLimitRejection {

		/**
		 * Returns one second: a Redis that failed may answer again shortly.
		 * @return 1
		 */
		@Override
		public long retryAfterSeconds() {
			return 1;
		}

	}

	/**
	 * The request lacks the key of a rule whose {@code missing-key} is {@code reject} (400).
	 *
	 * @param method the request's HTTP method
	 * @param path the request's path
	 * @param rule the rule whose key it lacks
	 */
	record MissingKey(String method, String path, RateLimitRule rule) implements RateLimitRejection {
	}

	/**
	 * A limit the application applies in its own JVM refused a call the request's handler made: Spring Framework's
	 * {@code @ConcurrencyLimit(policy = REJECT)} threw {@code InvocationRejectedException} out of the handler.
	 * {@code ratelimit.invocation-rejected.status} picks the status (503 by default, or 429) and
	 * {@code ratelimit.invocation-rejected.retry-after} the {@code Retry-After}, which the exception does not tell.
	 *
	 * @param method the request's HTTP method
	 * @param path the request's path
	 * @param status the status to answer with: 503 or 429
	 * @param retryAfterSeconds how long the client should wait, in whole seconds; zero when not known
	 */
	record Throttled(String method, String path, int status, long retryAfterSeconds) implements RateLimitRejection {

		public Throttled {
			Assert.isTrue(status == 503 || status == 429, "status must be 503 or 429");
			Assert.isTrue(retryAfterSeconds >= 0, "retryAfterSeconds must not be negative");
		}

	}

	/**
	 * The request's client address is on the deny list, {@code ratelimit.deny.addresses} (403): refused
	 * before any rule.
	 *
	 * @param method the request's HTTP method
	 * @param path the request's path
	 */
	record Denied(String method, String path) implements RateLimitRejection {
	}

	/**
	 * Says why a request is refused, in a sentence a client's developer reads: the problem's {@code detail}, and the
	 * description of a refused gRPC call's status.
	 * @return the sentence
	 */
	default String detail() {
		RateLimitRejection rejection = this;
		if (rejection instanceof RateLimitRejection.Denied) {
			return "Requests from this client address are denied.";
		}
		if (rejection instanceof RateLimitRejection.MissingKey missing) {
			RateLimitRule rule = missing.rule();
			return "Rate limit '" + rule.name() + "' needs " + wanted(rule.key()) + "; send it and try again.";
		}
		if (rejection instanceof RateLimitRejection.Unavailable) {
			return "The rate limiter could not reach a decision and ratelimit.failure-mode is fail-closed.";
		}
		if (rejection instanceof RateLimitRejection.Throttled throttled) {
			long seconds = throttled.retryAfterSeconds();
			return "Too many calls of this operation are in progress"
					+ ((seconds == 0) ? "; try again later." : "; retry after " + seconds + ((seconds == 1) ? " second." : " seconds."));
		}
		List<String> descriptions = new ArrayList<>();
		long retryAfter = rejection.retryAfterSeconds();
		for (AppliedLimit limit : rejection.violated()) {
			if (limit.concurrency()) {
				return "Too many requests in flight: '" + limit.policy() + "' allows " + limit.limit().limit()
						+ " at a time; retry after " + retryAfter + ((retryAfter == 1) ? " second." : " seconds.");
			}
			descriptions.add("'" + limit.policy() + "' of " + limit.limit().limit() + " per " + limit.limit().windowInWords());
		}
		return ((descriptions.size() == 1) ? "Rate limit " : "Rate limits ") + String.join(" and ", descriptions)
				+ " exceeded; retry after " + retryAfter + ((retryAfter == 1) ? " second." : " seconds.");
	}

	/** What a request lacking the key should send. */
	private static String wanted(RuleKey key) {
		if (key instanceof RuleKey.Header header) {
			return "the header " + header.name();
		}
		if (key instanceof RuleKey.Param param) {
			return "the parameter " + param.name();
		}
		if (key instanceof RuleKey.Principal) {
			return "an authenticated user";
		}
		return "a key (" + key.spelling() + ")";
	}

}

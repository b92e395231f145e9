package dev.ratelimit.rules.internal;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;

/**
 * The default {@link RateLimitRejectionHandler}: an RFC 9457 {@link ProblemDetail}, with the violated
 * policies' names as the {@code violatedPolicies} property, sent as {@code application/problem+json}.
 *
 * @since 0.1.0
 */
public final class ProblemDetailRejectionHandler implements RateLimitRejectionHandler {

	private static final URI ABOUT_BLANK = URI.create("about:blank");

	@Override
	public ResponseEntity<ProblemDetail> handle(RateLimitRejection rejection) {
		ProblemDetail problem;
		if (rejection instanceof RateLimitRejection.Denied) {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.FORBIDDEN, detail(rejection));
		}
		else if (rejection instanceof RateLimitRejection.MissingKey missing) {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail(rejection));
			problem.setProperty("missingKey", missing.rule().key().spelling());
		}
		else if (rejection instanceof RateLimitRejection.Unavailable) {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, detail(rejection));
		}
		else {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail(rejection));
			problem.setProperty("violatedPolicies", rejection.violated().stream().map(AppliedLimit::policy).toList());
		}
		// RFC 9457's default type, named as clients of the first release read it
		problem.setType(ABOUT_BLANK);
		try {
			problem.setInstance(URI.create(rejection.path()));
		}
		catch (IllegalArgumentException ex) {
			// a path that is no URI reference names no instance
		}
		return ResponseEntity.status(problem.getStatus()).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
	}

	/**
	 * Says why a request is refused, in a sentence a client's developer reads: the problem's {@code detail}, and the
	 * description of a refused gRPC call's status.
	 * @param rejection why it is refused
	 * @return the sentence
	 */
	public static String detail(RateLimitRejection rejection) {
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
		List<String> descriptions = new ArrayList<>();
		long retryAfter = rejection.retryAfterSeconds();
		for (AppliedLimit limit : rejection.violated()) {
			if (limit.concurrency()) {
				return "Too many requests in flight: '" + limit.policy() + "' allows " + limit.limit().limit()
						+ " at a time; retry after " + retryAfter + ((retryAfter == 1) ? " second." : " seconds.");
			}
			descriptions.add("'" + limit.policy() + "' of " + limit.limit().limit() + " per " + describe(limit.limit().window()));
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

	private static String describe(Duration window) {
		if (window.toMillis() % 1000 != 0) {
			return window.toMillis() + "ms";
		}
		long seconds = window.getSeconds();
		if (seconds % 3600 == 0) {
			return (seconds == 3600) ? "hour" : (seconds / 3600) + " hours";
		}
		if (seconds % 60 == 0) {
			return (seconds == 60) ? "minute" : (seconds / 60) + " minutes";
		}
		return (seconds == 1) ? "second" : seconds + " seconds";
	}

}

package dev.ratelimit.rules.internal;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;

/**
 * The default {@link RateLimitRejectionHandler}: an RFC 9457 {@link ProblemDetail}, with the violated
 * policies' names as the {@code violatedPolicies} property, sent as {@code application/problem+json}.
 *
 * @since 0.1.0
 */
final class ProblemDetailRejectionHandler implements RateLimitRejectionHandler {

	private static final URI ABOUT_BLANK = URI.create("about:blank");

	@Override
	public ResponseEntity<ProblemDetail> handle(RateLimitRejection rejection) {
		ProblemDetail problem;
		if (rejection instanceof RateLimitRejection.Denied) {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.FORBIDDEN, rejection.detail());
		}
		else if (rejection instanceof RateLimitRejection.MissingKey missing) {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, rejection.detail());
			problem.setProperty("missingKey", missing.rule().key().spelling());
		}
		else if (rejection instanceof RateLimitRejection.Unavailable) {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, rejection.detail());
		}
		else if (rejection instanceof RateLimitRejection.Throttled throttled) {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.valueOf(throttled.status()), rejection.detail());
		}
		else {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, rejection.detail());
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

}

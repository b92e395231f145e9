package dev.ratelimit.sample;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.RateLimitDecision;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Shows a {@link RateLimitDecision} as JSON: a login attempt that {@link LoginService} allows or
 * refuses.
 */
@RestController
class LoginController {

	private final LoginService logins;

	LoginController(LoginService logins) {
		this.logins = logins;
	}

	@PostMapping("/login")
	ResponseEntity<Map<String, Object>> login(@RequestParam String username) {
		RateLimitDecision decision = this.logins.attempt(username);
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("username", username);
		body.put("allowed", decision.allowed());
		body.put("limit", decision.limit());
		body.put("remaining", decision.remaining());
		body.put("retryAfterSeconds", secondsRoundedUp(decision.retryAfter()));
		body.put("resetAfterSeconds", secondsRoundedUp(decision.resetAfter()));
		HttpStatus status = decision.allowed() ? HttpStatus.OK : HttpStatus.TOO_MANY_REQUESTS;
		return ResponseEntity.status(status).body(body);
	}

	private static long secondsRoundedUp(Duration duration) {
		return (duration.toNanos() + 999_999_999L) / 1_000_000_000L;
	}

}

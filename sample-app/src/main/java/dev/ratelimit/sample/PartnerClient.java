package dev.ratelimit.sample;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.redis.GcraRateLimiter;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Throttles calls out to a partner that allows 2 calls per second from all our instances together:
 * each call waits for its turn with {@code acquire}, for at most a second, instead of being refused.
 */
@RestController
class PartnerClient {

	private static final RateLimit PARTNER = RateLimit.of(2, Duration.ofSeconds(1));

	private static final Duration MAX_WAIT = Duration.ofSeconds(1);

	private final GcraRateLimiter limiter;

	PartnerClient(GcraRateLimiter limiter) {
		this.limiter = limiter;
	}

	@GetMapping("/outbound/{id}")
	ResponseEntity<Map<String, Object>> call(@PathVariable String id) {
		long started = System.nanoTime();
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("id", id);
		RateLimitDecision decision;
		try {
			decision = this.limiter.acquire("partner-api", PARTNER, 1, MAX_WAIT);
		}
		catch (RateLimiterUnavailableException ex) {
			// Redis cannot say whose turn it is: the partner is not called rather than flooded
			body.put("called", false);
			body.put("error", "rate limiter unavailable");
			return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(body);
		}
		body.put("called", decision.allowed());
		body.put("waitedMs", (System.nanoTime() - started) / 1_000_000);
		// the partner would be called here; a call that could not get its turn within a second is not made
		return decision.allowed() ? ResponseEntity.ok(body)
				: ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
					.header("Retry-After", Long.toString(decision.retryAfterSeconds()))
					.body(body);
	}

}

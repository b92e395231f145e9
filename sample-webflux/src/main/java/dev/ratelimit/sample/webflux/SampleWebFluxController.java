package dev.ratelimit.sample.webflux;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import reactor.core.publisher.Mono;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimited;
import dev.ratelimit.redis.GcraRateLimiter;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample's endpoints.
 */
@RestController
class SampleWebFluxController {

	private static final RateLimit QUOTES = RateLimit.of(2, Duration.ofSeconds(10));

	private final GcraRateLimiter limiter;

	SampleWebFluxController(GcraRateLimiter limiter) {
		this.limiter = limiter;
	}

	@GetMapping("/api/greeting")
	Mono<Map<String, String>> greeting() {
		return Mono.just(Map.of("message", "Hello from WebFlux"));
	}

	@GetMapping("/api/tenant/orders")
	Mono<Map<String, String>> orders() {
		return Mono.just(Map.of("orders", "none yet"));
	}

	@GetMapping("/api/reports")
	@RateLimited(limit = 2, window = "30s")
	Mono<Map<String, String>> reports() {
		return Mono.just(Map.of("report", "ready"));
	}

	@GetMapping("/api/quotes/{symbol}")
	Mono<ResponseEntity<Map<String, Object>>> quote(@PathVariable String symbol) {
		return Mono.fromFuture(() -> this.limiter.tryAcquireAsync("quote:" + symbol, QUOTES))
			.map((decision) -> decision.allowed()
					? ResponseEntity.ok(quote(symbol, "remaining", decision.remaining()))
					: ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
						.header("Retry-After", Long.toString(decision.retryAfterSeconds()))
						.body(quote(symbol, "retryAfterSeconds", decision.retryAfterSeconds())));
	}

	/** A quote's answer, its members in this order in JSON (a {@code Map.of} has no order of its own). */
	private static Map<String, Object> quote(String symbol, String name, long value) {
		Map<String, Object> quote = new LinkedHashMap<>();
		quote.put("symbol", symbol);
		quote.put(name, value);
		return quote;
	}

}

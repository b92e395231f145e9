package dev.ratelimit.sample;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample's endpoints; which limit applies to each is set in {@code application.properties} or by
 * {@link RateLimited}.
 */
@RestController
class SampleController {

	/** Limited by the {@code greeting} rule: per client address. */
	@GetMapping("/api/greeting")
	Map<String, String> greeting() {
		return Map.of("message", "Hello from a rate-limited endpoint");
	}

	/** Limited by the {@code partner} rule: per API key. */
	@GetMapping("/api/partner/quote")
	Map<String, String> quote(@RequestHeader(name = "X-Api-Key", required = false) String apiKey) {
		return ordered("quote", "Limits are budgets, not walls.", "apiKey", (apiKey != null) ? apiKey : "(none)");
	}

	/** Limited by the {@code plans} rule: per API key, by the key's plan. */
	@GetMapping("/api/plans/quote")
	Map<String, String> planQuote(@RequestHeader(name = "X-Api-Key", required = false) String apiKey) {
		return ordered("quote", "You get what you pay for.", "apiKey", (apiKey != null) ? apiKey : "(none)");
	}

	/** Limited by the {@code search} rule: 2 per second and 10 per minute, all or nothing. */
	@GetMapping("/api/search")
	Map<String, String> search() {
		return Map.of("results", "none yet");
	}

	/** Observed by the {@code beta} rule in shadow mode: never refused. */
	@GetMapping("/api/beta")
	Map<String, String> beta() {
		return Map.of("feature", "beta");
	}

	/** Limited by its annotation. */
	@GetMapping("/reports")
	@RateLimited(limit = 2, window = "30s", name = "reports")
	Map<String, String> reports() {
		return ordered("report", "monthly", "status", "generated");
	}

	/** Limited by the rule named like the algorithm in the path. */
	@GetMapping("/algorithms/{algorithm}")
	Map<String, String> algorithm(@PathVariable String algorithm) {
		return ordered("algorithm", algorithm, "servedAt", Instant.now().toString());
	}

	/** A two-entry map that keeps its order, so that the JSON reads the same on every run. */
	private static Map<String, String> ordered(String key1, String value1, String key2, String value2) {
		Map<String, String> map = new LinkedHashMap<>();
		map.put(key1, value1);
		map.put(key2, value2);
		return map;
	}

}

package dev.ratelimit.sample;

import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Endpoints limited by the {@code api} rule of {@code application.properties}.
 */
@RestController
class GreetingController {

	@GetMapping("/api/greeting")
	Map<String, String> greeting() {
		return Map.of("message", "Hello from a rate-limited endpoint");
	}

}

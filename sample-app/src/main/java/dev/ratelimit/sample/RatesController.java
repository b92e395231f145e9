package dev.ratelimit.sample;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.core.env.Environment;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;

/**
 * Calls a partner for exchange rates with a {@code RestClient} built from Spring Boot's builder: the starter has it
 * take a permit from the partner's budget ({@code ratelimit.clients.rates}: 5 calls per 10 seconds, every instance
 * together) before each call, and learn from the partner's answers (a {@code RateLimit} header with {@code r=0}, a
 * 429 with {@code Retry-After}). A call the budget refuses never leaves: the
 * {@code RateLimitExceededException} becomes our 429. The partner is played by this application
 * ({@code /partner/rates/*}, limited by the rule {@code fake-partner} to 3 calls per 10 seconds: stricter than the
 * budget we were told, as partners are).
 */
@RestController
class RatesController {

	private final RestClient partner;

	private final Environment environment;

	RatesController(RestClient.Builder builder, Environment environment) {
		this.partner = builder.build();
		this.environment = environment;
	}

	@GetMapping("/api/rates/{currency}")
	ResponseEntity<Map<String, Object>> rate(@PathVariable String currency) {
		String url = "http://127.0.0.1:" + this.environment.getProperty("local.server.port") + "/partner/rates/"
				+ currency;
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("currency", currency);
		try {
			body.put("rate", this.partner.get().uri(url).retrieve().body(String.class));
			return ResponseEntity.ok(body);
		}
		catch (RestClientResponseException ex) {
			// the partner refused the call: the budget has learnt for how long, on every instance
			body.put("partnerStatus", ex.getStatusCode().value());
			return ResponseEntity.status(502).body(body);
		}
	}

	/** The partner's API, played by this application. */
	@GetMapping("/partner/rates/{currency}")
	String partnerRate(@PathVariable String currency) {
		return "1.0842";
	}

}

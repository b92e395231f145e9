package dev.ratelimit.sample;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;

import org.springframework.stereotype.Service;

/**
 * A service limited by its annotations, whoever calls it: 3 text messages per phone number per hour, keyed by the
 * method's argument, and a digest that falls back to the last one sent instead of failing.
 */
@Service
class SmsService {

	/**
	 * Sends a text message; the fourth to the same number within an hour throws {@link RateLimitExceededException},
	 * which the web layer answers with 429.
	 */
	@RateLimited(name = "sms", limit = 3, window = "1h", key = "#phone")
	public Map<String, String> send(String phone, String text) {
		Map<String, String> sent = new LinkedHashMap<>();
		sent.put("phone", phone);
		sent.put("sent", text);
		return sent;
	}

	/** Sends the day's digest at most once a minute per number; a refused call gets the queued answer instead. */
	@RateLimited(name = "sms-digest", limit = 1, window = "1m", key = "#phone", fallbackMethod = "queued")
	public Map<String, String> digest(String phone) {
		Map<String, String> sent = new LinkedHashMap<>();
		sent.put("phone", phone);
		sent.put("digest", "sent");
		return sent;
	}

	Map<String, String> queued(String phone, RateLimitExceededException refused) {
		Map<String, String> queued = new LinkedHashMap<>();
		queued.put("phone", phone);
		queued.put("digest", "queued, next in " + refused.getRetryAfter().toSeconds() + "s");
		return queued;
	}

}

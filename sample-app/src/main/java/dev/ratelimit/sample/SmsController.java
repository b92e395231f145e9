package dev.ratelimit.sample;

import java.util.Map;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Calls the {@link SmsService}, whose limits are its own: the controller has no rule, and a refusal of the service
 * reaches the client as 429 with the rate-limit headers.
 */
@RestController
class SmsController {

	private final SmsService sms;

	SmsController(SmsService sms) {
		this.sms = sms;
	}

	@PostMapping("/api/sms/{phone}")
	Map<String, String> send(@PathVariable String phone, @RequestParam(defaultValue = "hello") String text) {
		return this.sms.send(phone, text);
	}

	@PostMapping("/api/sms/{phone}/digest")
	Map<String, String> digest(@PathVariable String phone) {
		return this.sms.digest(phone);
	}

}

package dev.ratelimit.web;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Endpoints that Spring MVC and WebFlux serve alike, for the tests that run on every {@link WebStack}.
 */
@RestController
public class StackEndpoints {

	/** How many requests reached a handler. */
	public final AtomicInteger served = new AtomicInteger();

	@GetMapping({ "/open", "/keyed", "/address", "/quota" })
	String plain() {
		this.served.incrementAndGet();
		return "ok";
	}

	/** 401 unless the password is right, for rules that count failures only. */
	@GetMapping("/sign-in")
	ResponseEntity<String> signIn(@RequestParam String user, @RequestParam String password) {
		this.served.incrementAndGet();
		return "secret".equals(password) ? ResponseEntity.ok("welcome " + user)
				: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password");
	}

}

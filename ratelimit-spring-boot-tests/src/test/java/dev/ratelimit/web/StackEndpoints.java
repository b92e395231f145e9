package dev.ratelimit.web;

import java.security.Principal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Endpoints that Spring MVC and WebFlux serve alike, for the tests that run on every {@link WebStack}.
 */
@RestController
public class StackEndpoints {

	/** How many requests reached a handler. */
	public final AtomicInteger served = new AtomicInteger();

	@GetMapping({ "/open", "/keyed", "/address", "/quota", "/api/{name}" })
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

	/**
	 * As {@code /sign-in}, answered 100 ms later from another thread, as a password hash would take: an
	 * asynchronous handler on both stacks, whose status is known only when it completes.
	 */
	@GetMapping("/slow-sign-in")
	CompletableFuture<ResponseEntity<String>> slowSignIn(@RequestParam String user, @RequestParam String password,
			@RequestParam(defaultValue = "100") long millis) {
		return CompletableFuture.supplyAsync(() -> signIn(user, password),
				CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
	}

	/** An exception no resolver handles: the stack answers 500. */
	@GetMapping("/explode")
	String explode() {
		this.served.incrementAndGet();
		throw new IllegalStateException("a handler with a bug");
	}

	/** 403 unless the authenticated user is the account's owner. */
	@GetMapping("/account/{owner}")
	ResponseEntity<String> account(@PathVariable String owner, Principal principal) {
		this.served.incrementAndGet();
		return owner.equals(principal.getName()) ? ResponseEntity.ok("account of " + owner)
				: ResponseEntity.status(HttpStatus.FORBIDDEN).body("not yours");
	}

}

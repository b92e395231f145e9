package com.example.greeting;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A user's application: {@code /api/hello}, limited to 3 requests a minute per client address by
 * {@code application.properties}.
 */
@SpringBootApplication
public class GreetingApplication {

	/**
	 * Runs the application.
	 * @param args the command line
	 */
	public static void main(String[] args) {
		SpringApplication.run(GreetingApplication.class, args);
	}

	@RestController
	static class HelloController {

		@GetMapping("/api/hello")
		String hello() {
			return "Hello";
		}

	}

}

package dev.ratelimit.benchmarks.apps.reactive;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The smallest WebFlux application (Reactor Netty) a user would write: one controller with trivial endpoints. Its rules, if
 * any, come from the command line ({@code --ratelimit.rules.*}); started with and without the starter's jars on
 * the class path by {@link dev.ratelimit.benchmarks.HttpCost}.
 */
@SpringBootApplication
@RestController
public class ReactiveApp {

	@GetMapping({ "/open", "/limited", "/three" })
	String hello() {
		return "hello";
	}

	public static void main(String[] args) {
		SpringApplication.run(ReactiveApp.class, args);
	}

}

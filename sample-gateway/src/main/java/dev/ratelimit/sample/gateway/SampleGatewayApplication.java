package dev.ratelimit.sample.gateway;

import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A gateway whose routes (in {@code application.yml}) ratelimit limits, and the service behind them, in one
 * application so that the sample runs alone: the routes forward to {@code /backend/**}.
 */
@SpringBootApplication
public class SampleGatewayApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleGatewayApplication.class, args);
	}

	/**
	 * The filter's default key: the client address.
	 */
	@Bean
	@Primary
	KeyResolver clientAddressKeyResolver() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getRemoteAddress())
			.map((address) -> address.getAddress().getHostAddress());
	}

	/**
	 * The key of the partner route, named in its args: the X-Api-Key header.
	 */
	@Bean
	KeyResolver apiKeyResolver() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
	}

	/**
	 * The service behind the gateway.
	 */
	@RestController
	static class Backend {

		@GetMapping("/backend/{name}")
		String hello(@PathVariable String name) {
			return "Hello from " + name + "\n";
		}

	}

}

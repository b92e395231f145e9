package dev.ratelimit.sample.webflux;

import reactor.core.publisher.Mono;

import dev.ratelimit.web.reactive.ReactiveRateLimitKeyResolver;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * Entry point of the WebFlux sample application.
 */
@SpringBootApplication
public class SampleWebFluxApplication {

	/**
	 * Starts the WebFlux sample application.
	 * @param args command-line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleWebFluxApplication.class, args);
	}

	/**
	 * The tenant of a request, named by the {@code tenant} rule's key {@code bean:tenantKey}.
	 * @return the resolver
	 */
	@Bean
	ReactiveRateLimitKeyResolver tenantKey() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Tenant"));
	}

}

package dev.ratelimit.benchmarks.apps.gateway;

import java.util.Objects;

import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

/**
 * The smallest Spring Cloud Gateway a user would write: routes from the command line to an upstream, and a
 * {@code KeyResolver} reading {@code X-Api-Key}, which both ratelimit's route filter and Spring Cloud Gateway's own
 * {@code RedisRateLimiter} take, so that the two key requests alike.
 */
@SpringBootApplication
public class GatewayApp {

	@Bean
	KeyResolver apiKeyResolver() {
		return (exchange) -> Mono.just(Objects.requireNonNullElse(
				exchange.getRequest().getHeaders().getFirst("X-Api-Key"), "none"));
	}

	public static void main(String[] args) {
		SpringApplication.run(GatewayApp.class, args);
	}

}

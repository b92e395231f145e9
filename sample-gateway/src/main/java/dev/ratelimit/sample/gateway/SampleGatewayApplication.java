package dev.ratelimit.sample.gateway;

import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;

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
	 * The service behind the gateway, reached through the routes only.
	 */
	@RestController
	static class Backend {

		/**
		 * Answers a request a route forwarded; any other (a client asking for {@code /backend/...} itself, however
		 * it spells the path) would skip every route's limit, and is answered 404.
		 */
		@GetMapping("/backend/{name}")
		ResponseEntity<String> hello(@PathVariable String name, ServerWebExchange exchange) {
			if (exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR) == null) {
				return ResponseEntity.notFound().build();
			}
			return ResponseEntity.ok("Hello from " + name + "\n");
		}

	}

}

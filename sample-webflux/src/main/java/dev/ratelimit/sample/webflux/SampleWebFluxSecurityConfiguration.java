package dev.ratelimit.sample.webflux;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * The sample's API is open, and so is the health check; every other actuator operation, reads included, takes
 * the admin user, over HTTP Basic: resetting a budget or reloading the rules must not be anyone's, and reading a
 * key's state tells how another client fares. The rate-limit filters run ahead of this chain.
 */
@Configuration(proxyBeanMethods = false)
class SampleWebFluxSecurityConfiguration {

	@Bean
	SecurityWebFilterChain sampleSecurity(ServerHttpSecurity http) {
		return http
			.authorizeExchange((exchanges) -> exchanges.pathMatchers(HttpMethod.GET, "/actuator/health")
				.permitAll()
				.pathMatchers("/actuator/**")
				.hasRole("ADMIN")
				.anyExchange()
				.permitAll())
			.httpBasic(Customizer.withDefaults())
			// a stateless API: no session cookie that a forged cross-site request could ride on
			.csrf((csrf) -> csrf.disable())
			.build();
	}

}

package dev.ratelimit.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The sample's API is open, and so is the health check; every other actuator operation, reads included, takes
 * the admin user, over HTTP Basic: reading a key's state tells whoever asks how another user's sign-ins went,
 * and resetting or blocking one gives a budget back or takes it away. The rate-limit filter runs ahead of this
 * chain, so refused logins and requests are limited too.
 */
@Configuration(proxyBeanMethods = false)
class SampleSecurityConfiguration {

	@Bean
	SecurityFilterChain sampleSecurity(HttpSecurity http) throws Exception {
		return http
			.authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET, "/actuator/health")
				.permitAll()
				.requestMatchers("/actuator/**")
				.hasRole("ADMIN")
				.anyRequest()
				.permitAll())
			.httpBasic(Customizer.withDefaults())
			// a stateless API: no session cookie that a forged cross-site request could ride on
			.csrf((csrf) -> csrf.disable())
			.build();
	}

}

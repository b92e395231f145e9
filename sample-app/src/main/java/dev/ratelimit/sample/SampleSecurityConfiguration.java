package dev.ratelimit.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The sample's API is open, and so are the actuator's reads; its write operations (resetting a budget
 * through the {@code ratelimit} endpoint) take the admin user, over HTTP Basic. The rate-limit filter
 * runs ahead of this chain, so refused logins and requests are limited too.
 */
@Configuration(proxyBeanMethods = false)
class SampleSecurityConfiguration {

	@Bean
	SecurityFilterChain sampleSecurity(HttpSecurity http) throws Exception {
		return http
			.authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET, "/actuator/**")
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

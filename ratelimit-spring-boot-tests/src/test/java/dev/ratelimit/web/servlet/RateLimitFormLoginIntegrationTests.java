package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.event.AbstractAuthenticationFailureEvent;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AuthenticationEntryPointFailureHandler;
import org.springframework.security.web.authentication.HttpStatusEntryPoint;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failed form logins counted per user name and successful ones free, through Spring Security's own
 * form login on Tomcat and a real Redis: its failure handler answers 401 (a redirect would look the same
 * for success and failure), the rule counts 401s and blocks the user name once they are spent.
 */
@SpringBootTest(classes = RateLimitFormLoginIntegrationTests.FormLoginApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.rules.login.paths=/login", "ratelimit.rules.login.methods=POST",
				"ratelimit.rules.login.key=param:username", "ratelimit.rules.login.limit=3",
				"ratelimit.rules.login.window=15m", "ratelimit.rules.login.count-statuses=401",
				"ratelimit.rules.login.block-for=30m" })
class RateLimitFormLoginIntegrationTests extends RedisBackedWebTests {

	private static final HttpClient http = HttpClient.newHttpClient();

	@Autowired
	private AuthenticationFailures failures;

	@Test
	void countsFailedLoginsPerUserNameAndNotSuccessfulOnes() throws Exception {
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> success = login("ann", "secret");
			assertThat(success.statusCode()).isEqualTo(302);
			assertThat(success.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.startsWith("\"login\";r=3;");
		}
		for (int i = 0; i < 3; i++) {
			assertThat(login("ann", "guess" + i).statusCode()).isEqualTo(401);
		}
		// spent: refused before Security sees it, right password or not, and blocked for 30 minutes
		HttpResponse<String> refused = login("ann", "secret");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("1800");
		assertThat(this.failures.count).hasValue(3);
		// another user name is apart, from the same address
		assertThat(login("bob", "secret").statusCode()).isEqualTo(302);
		assertThat(login("bob", "guess").statusCode()).isEqualTo(401);
	}

	private HttpResponse<String> login(String user, String password) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/login"))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString("username=" + user + "&password=" + password))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(AuthenticationFailures.class)
	static class FormLoginApplication {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				// a failed login answers 401 instead of redirecting, so that count-statuses=401 tells it apart
				.formLogin((form) -> form
					.failureHandler(new AuthenticationEntryPointFailureHandler(new HttpStatusEntryPoint(HttpStatus.UNAUTHORIZED))))
				.csrf((csrf) -> csrf.disable())
				.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(User.withUsername("ann").password("{noop}secret").roles("USER").build(),
					User.withUsername("bob").password("{noop}secret").roles("USER").build());
		}

	}

	static class AuthenticationFailures {

		final AtomicInteger count = new AtomicInteger();

		@EventListener
		void onFailure(AbstractAuthenticationFailureEvent event) {
			this.count.incrementAndGet();
		}

	}

}

package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.security.authentication.event.AbstractAuthenticationFailureEvent;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules from properties apply ahead of Spring Security's filter chain, on a real server with a real
 * Redis: what Security answers on its own (a failed form login, HTTP Basic's 401, authorization's 403)
 * is counted and refused with 429 once a rule's budget is spent, before Security sees the request; a
 * rule keyed by {@code principal} applies after authentication and charges the user.
 */
@SpringBootTest(classes = RateLimitSpringSecurityIntegrationTests.SecuredApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=security", "ratelimit.rules.login.paths=/login",
				"ratelimit.rules.login.methods=POST", "ratelimit.rules.login.limit=3",
				"ratelimit.rules.login.window=1m", "ratelimit.rules.basic.paths=/basic/**",
				"ratelimit.rules.basic.limit=3", "ratelimit.rules.basic.window=1m",
				"ratelimit.rules.admin.paths=/admin/**", "ratelimit.rules.admin.limit=2",
				"ratelimit.rules.admin.window=1m", "ratelimit.rules.me.paths=/me", "ratelimit.rules.me.key=principal",
				"ratelimit.rules.me.limit=2", "ratelimit.rules.me.window=1m" })
class RateLimitSpringSecurityIntegrationTests extends RedisBackedWebTests {

	private static final HttpClient http = HttpClient.newHttpClient();

	@Autowired
	private AuthenticationFailures failures;

	@BeforeEach
	void forgetFailures() {
		this.failures.count.set(0);
	}

	@Test
	void refusesAFormLoginBruteForceBeforeSpringSecuritySeesIt() throws Exception {
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> failed = post("/login", "username=ann&password=guess" + i);
			assertThat(failed.statusCode()).isEqualTo(302);
			assertThat(failed.headers().firstValue("Location").orElseThrow()).contains("/login?error");
			assertThat(failed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.matches("\"login\";r=" + (2 - i) + ";t=(59|60)");
		}
		HttpResponse<String> refused = post("/login", "username=ann&password=secret");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"login\";q=3;w=60");
		assertThat(refused.headers().firstValue("Retry-After").orElseThrow()).matches("59|60");
		assertThat((String) JsonPath.read(refused.body(), "$.title")).isEqualTo("Too Many Requests");
		// Security saw the three failures and never the fourth attempt, right password or not
		assertThat(this.failures.count).hasValue(3);
	}

	@Test
	void countsHttpBasicFailuresThenRefusesWith429() throws Exception {
		String wrong = basic("ann", "wrong");
		assertThat(get("/basic/hello", wrong).statusCode()).isEqualTo(401);
		assertThat(get("/basic/hello", wrong).statusCode()).isEqualTo(401);
		assertThat(get("/basic/hello", wrong).statusCode()).isEqualTo(401);
		HttpResponse<String> refused = get("/basic/hello", wrong);
		assertThat(refused.statusCode()).isEqualTo(429);
		// the minute opened with the first failure; seconds pass on a loaded machine
		assertThat(refused.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.matches("\"basic\";r=0;t=(5\\d|60)");
		// the budget is the address's, whoever claims to be calling
		assertThat(get("/basic/hello", basic("ann", "secret")).statusCode()).isEqualTo(429);
		assertThat(this.failures.count).hasValue(3);
	}

	@Test
	void countsRequestsSpringSecurityForbids() throws Exception {
		String ann = basic("ann", "secret");
		assertThat(get("/admin/panel", ann).statusCode()).isEqualTo(403);
		assertThat(get("/admin/panel", ann).statusCode()).isEqualTo(403);
		assertThat(get("/admin/panel", ann).statusCode()).isEqualTo(429);
	}

	@Test
	void chargesThePrincipalRuleToTheLoggedInUser() throws Exception {
		String ann = basic("ann", "secret");
		assertThat(get("/me", ann).body()).isEqualTo("ann");
		HttpResponse<String> second = get("/me", ann);
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(second.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.matches("\"me\";r=0;t=(59|60)");
		assertThat(get("/me", ann).statusCode()).isEqualTo(429);
		// same address, another user: a budget of its own
		HttpResponse<String> bob = get("/me", basic("bob", "secret"));
		assertThat(bob.statusCode()).isEqualTo(200);
		assertThat(bob.body()).isEqualTo("bob");
		assertThat(this.redis.keys(this.prefix + ":*:me:principal:ann")).hasSize(1);
		assertThat(this.redis.keys(this.prefix + ":*:me:principal:bob")).hasSize(1);
	}

	private HttpResponse<String> get(String path, String authorization) throws IOException, InterruptedException {
		return http.send(request(path).header("Authorization", authorization).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(String path, String form) throws IOException, InterruptedException {
		return http.send(request(path).header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path));
	}

	private static String basic(String user, String password) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ SecuredEndpoints.class, AuthenticationFailures.class })
	static class SecuredApplication {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			return http
				.authorizeHttpRequests((requests) -> requests.requestMatchers("/admin/**")
					.hasRole("ADMIN")
					.anyRequest()
					.authenticated())
				.formLogin(Customizer.withDefaults())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.disable())
				.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("ann").password("{noop}secret").roles("USER").build(),
					User.withUsername("bob").password("{noop}secret").roles("USER").build());
		}

	}

	@RestController
	static class SecuredEndpoints {

		@GetMapping("/basic/hello")
		String hello() {
			return "hello";
		}

		@GetMapping("/admin/panel")
		String panel() {
			return "panel";
		}

		@GetMapping("/me")
		String me(Principal principal) {
			return principal.getName();
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

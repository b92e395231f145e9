package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import dev.ratelimit.RateLimited;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small web application for the end-to-end tests: endpoints for every kind of rule, a filter that
 * authenticates {@code X-User}, and a key resolver bean reading {@code X-Tenant}.
 */
@SpringBootConfiguration
// Spring Security is on the test class path for RateLimitSpringSecurityIntegrationTests; these tests run without it
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration" })
@Import({ RateLimitTestApplication.Endpoints.class, RateLimitTestApplication.SharedBudgetEndpoints.class })
class RateLimitTestApplication {

	static final HttpClient http = HttpClient.newHttpClient();

	/**
	 * Points the application at the test Redis, with a key prefix of its own so that test runs never
	 * share budgets.
	 */
	static void register(DynamicPropertyRegistry registry) {
		String prefix = "it-" + UUID.randomUUID().toString().substring(0, 8);
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		registry.add("ratelimit.key-prefix", () -> prefix);
		// functional tests: a slow moment on a loaded machine must not turn a decision into fail-open
		registry.add("ratelimit.timeout", () -> "5s");
	}

	static void deleteKeys(StringRedisTemplate redis, String prefix) {
		var keys = redis.keys(prefix + ":*");
		if (!keys.isEmpty()) {
			redis.delete(keys);
		}
	}

	static HttpResponse<String> get(int port, String path, String... headers) throws IOException, InterruptedException {
		return send(port, "GET", path, headers);
	}

	static HttpResponse<String> send(int port, String method, String path, String... headers)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.method(method, HttpRequest.BodyPublishers.noBody());
		if (headers.length > 0) {
			request.headers(headers);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Bean
	RateLimitKeyResolver tenantResolver() {
		return (request) -> request.getHeader("X-Tenant");
	}

	@Bean
	RateLimitKeyResolver explodingResolver() {
		return (request) -> {
			throw new IllegalStateException("a resolver with a bug");
		};
	}

	@Bean
	Filter userFilter() {
		return (request, response, chain) -> {
			String user = ((HttpServletRequest) request).getHeader("X-User");
			if (user == null) {
				chain.doFilter(request, response);
				return;
			}
			Principal principal = () -> user;
			chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {
				@Override
				public Principal getUserPrincipal() {
					return principal;
				}
			}, response);
		};
	}

	@RestController
	static class Endpoints {

		final AtomicInteger itemsServed = new AtomicInteger();

		@GetMapping("/api/items")
		String items() {
			this.itemsServed.incrementAndGet();
			return "items";
		}

		@PostMapping("/api/items")
		String create() {
			return "created";
		}

		@GetMapping({ "/open", "/keyed", "/param", "/tenant", "/me", "/sliding", "/multi/narrow", "/costly", "/search",
				"/api/health",
				"/both", "/bucket", "/shadowed", "/exploding" })
		String plain() {
			return "ok";
		}

		/** 401 unless the password is right, for rules that count failures only. */
		@GetMapping("/sign-in")
		ResponseEntity<String> signIn(@RequestParam String user, @RequestParam String password) {
			return "secret".equals(password) ? ResponseEntity.ok("welcome " + user)
					: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password");
		}

		@GetMapping("/annotated")
		@RateLimited(limit = 2, window = "1m")
		String annotated() {
			return "annotated";
		}

		@GetMapping("/annotated/smooth")
		@RateLimited(algorithm = "gcra", limits = { @RateLimited.Limit(limit = 2, window = "1s"),
				@RateLimited.Limit(limit = 3, window = "1h") })
		String annotatedSmooth() {
			return "smooth";
		}

		@GetMapping("/annotated/twice")
		@RateLimited(limit = 5, window = "1m", name = "per-minute")
		@RateLimited(limit = 1, window = "1h", key = "header:X-Api-Key", name = "per-hour")
		String annotatedTwice() {
			return "twice";
		}

	}

	@RestController
	@RateLimited(limit = 3, window = "1m", name = "shared")
	static class SharedBudgetEndpoints {

		@GetMapping("/shared/a")
		String a() {
			return "a";
		}

		@GetMapping("/shared/b")
		String b() {
			return "b";
		}

	}

}

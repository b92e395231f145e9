package dev.ratelimit.web.reactive;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.RateLimited;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;

/**
 * A small WebFlux application for the end-to-end tests on Netty: endpoints for every kind of rule, a
 * filter that authenticates {@code X-User}, reactive key resolvers, and a script runner that records
 * any blocking Redis call.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration" })
@Import(RateLimitWebFluxTestApplication.Endpoints.class)
class RateLimitWebFluxTestApplication {

	/** The properties of every WebFlux test: a reactive application on Netty, on the loopback address. */
	static final String REACTIVE = "spring.main.web-application-type=reactive";

	static final String LOOPBACK = "server.address=127.0.0.1";

	static final HttpClient http = HttpClient.newHttpClient();

	/**
	 * Points the application at the test Redis, with a key prefix of its own.
	 */
	static void register(DynamicPropertyRegistry registry) {
		String prefix = "flux-" + UUID.randomUUID().toString().substring(0, 8);
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		registry.add("ratelimit.key-prefix", () -> prefix);
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
			.method(method, HttpRequest.BodyPublishers.noBody())
			.timeout(Duration.ofSeconds(8));
		if (headers.length > 0) {
			request.headers(headers);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Bean
	ReactiveRateLimitKeyResolver tenantResolver() {
		// the tenant arrives later, as from a reactive lookup
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Tenant"))
			.delayElement(Duration.ofMillis(5));
	}

	/** Pro keys start with "pro-"; records the threads it is called on, which must not be event loops. */
	@Bean
	RateLimitPlanResolver planResolver(ThreadGuard guard) {
		return (rule, key) -> {
			guard.planThreads.add(Thread.currentThread().getName() + " nonBlocking=" + Schedulers.isInNonBlockingThread());
			return key.startsWith("pro-") ? "pro" : null;
		};
	}

	@Bean
	ReactiveRateLimitKeyResolver explodingResolver() {
		return (exchange) -> Mono.error(new IllegalStateException("a resolver with a bug"));
	}

	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	WebFilter userFilter() {
		return (exchange, chain) -> {
			String user = exchange.getRequest().getHeaders().getFirst("X-User");
			if (user == null) {
				return chain.filter(exchange);
			}
			Principal principal = () -> user;
			return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
		};
	}

	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	WebFilter threadRecorder(ThreadGuard guard) {
		return (exchange, chain) -> {
			guard.requestThreads.add(Thread.currentThread().getName() + " nonBlocking="
					+ Schedulers.isInNonBlockingThread());
			return chain.filter(exchange);
		};
	}

	@Bean
	ThreadGuard threadGuard() {
		return new ThreadGuard();
	}

	/**
	 * The starter's runner, watched: every blocking call is recorded with its thread.
	 */
	@Bean
	RedisScriptRunner rateLimitScriptRunner(LettuceConnectionFactory connectionFactory, ThreadGuard guard) {
		LettuceScriptRunner runner = new LettuceScriptRunner(connectionFactory, Duration.ofSeconds(5));
		return new RedisScriptRunner() {

			@Override
			public List<?> run(RedisScript<List> script, List<String> keys, List<String> args) {
				guard.blockingCalls.add(Thread.currentThread().getName());
				return runner.run(script, keys, args);
			}

			@Override
			public CompletableFuture<List<?>> runAsync(RedisScript<List> script, List<String> keys,
					List<String> args) {
				guard.asyncCalls.incrementAndGet();
				return runner.runAsync(script, keys, args);
			}

			@Override
			public boolean takesKeysOfAnySlot() {
				return runner.takesKeysOfAnySlot();
			}

		};
	}

	/** What the runner and the request threads saw. */
	static final class ThreadGuard {

		final Set<String> blockingCalls = ConcurrentHashMap.newKeySet();

		final AtomicInteger asyncCalls = new AtomicInteger();

		final Set<String> requestThreads = ConcurrentHashMap.newKeySet();

		final Set<String> planThreads = ConcurrentHashMap.newKeySet();

	}

	@RestController
	static class Endpoints {

		final AtomicInteger itemsServed = new AtomicInteger();

		@GetMapping("/api/items")
		Mono<String> items() {
			this.itemsServed.incrementAndGet();
			return Mono.just("items");
		}

		@PostMapping("/api/items")
		Mono<String> create() {
			return Mono.just("created");
		}

		@GetMapping({ "/open", "/keyed", "/param", "/tenant", "/me", "/both", "/shadowed", "/exploding", "/address",
				"/api/health" })
		Mono<String> plain() {
			return Mono.just("ok");
		}

		/** 401 unless the password is right, for rules that count failures only. */
		@GetMapping("/sign-in")
		Mono<ResponseEntity<String>> signIn(@RequestParam String user, @RequestParam String password) {
			return Mono.just("secret".equals(password) ? ResponseEntity.ok("welcome " + user)
					: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password"));
		}

		@GetMapping("/annotated")
		@RateLimited(limit = 2, window = "1m")
		Mono<String> annotated() {
			return Mono.just("annotated");
		}

	}

}

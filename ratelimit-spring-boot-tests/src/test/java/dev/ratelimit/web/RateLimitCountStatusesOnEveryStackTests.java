package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Bean;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rules that count responses by status ({@code count-statuses}) on every stack, behind Spring Security: the
 * charge goes to the budget the request was checked against (the user's, read before the handler), concurrent
 * requests never get more counted responses than the limit, and the status counted is the final one (an
 * asynchronous handler's, the 500 of an exception nobody handles).
 */
class RateLimitCountStatusesOnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.ofEntries(
			Map.entry("ratelimit.rules.sign-in.paths", "/slow-sign-in"), Map.entry("ratelimit.rules.sign-in.key", "param:user"),
			Map.entry("ratelimit.rules.sign-in.limit", "3"), Map.entry("ratelimit.rules.sign-in.window", "15m"),
			Map.entry("ratelimit.rules.sign-in.count-statuses", "401"),
			Map.entry("ratelimit.rules.password.paths", "/sign-in"), Map.entry("ratelimit.rules.password.key", "param:user"),
			Map.entry("ratelimit.rules.password.limit", "2"), Map.entry("ratelimit.rules.password.window", "15m"),
			Map.entry("ratelimit.rules.password.count-statuses", "401"),
			Map.entry("ratelimit.rules.accounts.paths", "/account/**"),
			Map.entry("ratelimit.rules.accounts.key", "principal"), Map.entry("ratelimit.rules.accounts.limit", "2"),
			Map.entry("ratelimit.rules.accounts.window", "15m"),
			Map.entry("ratelimit.rules.accounts.count-statuses", "403"),
			Map.entry("ratelimit.rules.errors.paths", "/explode"), Map.entry("ratelimit.rules.errors.limit", "1"),
			Map.entry("ratelimit.rules.errors.window", "15m"), Map.entry("ratelimit.rules.errors.count-statuses", "5xx"),
			Map.entry("ratelimit.rules.held.paths", "/held-sign-in"), Map.entry("ratelimit.rules.held.key", "param:user"),
			Map.entry("ratelimit.rules.held.limit", "2"), Map.entry("ratelimit.rules.held.window", "15m"),
			Map.entry("ratelimit.rules.held.count-statuses", "401")),
			(stack) -> (stack == WebStack.SERVLET)
					? new Class<?>[] { ServletSecurity.class, HeldAnswers.class, ServletHeldSignIn.class }
					: new Class<?>[] { ReactiveSecurity.class, HeldAnswers.class, ReactiveHeldSignIn.class });

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void chargesTheUserTheRequestWasCheckedAgainst(WebStack stack) {
		StackApp app = apps.on(stack);
		for (int i = 0; i < 2; i++) {
			assertThat(app.get("/account/bob", "Authorization", basic("alice")).status()).isEqualTo(403);
		}
		assertThat(app.get("/account/bob", "Authorization", basic("alice")).status()).isEqualTo(429);
		// bob shares alice's address, not her budget
		assertThat(app.get("/account/alice", "Authorization", basic("bob")).status()).isEqualTo(403);
		assertThat(app.get("/account/bob", "Authorization", basic("bob")).status()).isEqualTo(200);
		assertThat(app.redisKeys()).anyMatch((key) -> key.endsWith(":accounts:principal:alice"))
			.noneMatch((key) -> key.contains(":accounts:ip:"));
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void chargesFailuresOnlyAndRefusesOnceTheyAreSpent(WebStack stack) {
		StackApp app = apps.on(stack);
		for (int i = 0; i < 5; i++) {
			assertThat(app.get("/sign-in?user=ann&password=secret").status()).isEqualTo(200);
		}
		StackApp.Reply first = app.get("/sign-in?user=ann&password=guess");
		assertThat(first.status()).isEqualTo(401);
		// the headers tell the budget as the request found it, before its failure was charged
		assertThat(first.header("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.startsWith("\"password\";r=2;");
		assertThat(app.get("/sign-in?user=ann&password=guess").status()).isEqualTo(401);
		StackApp.Reply refused = app.get("/sign-in?user=ann&password=secret");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("Retry-After")).isPresent();
		// another user's failures are apart
		assertThat(app.get("/sign-in?user=bob&password=guess").status()).isEqualTo(401);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void neverCountsMoreResponsesThanTheLimitUnderConcurrency(WebStack stack) throws Exception {
		StackApp app = apps.on(stack);
		int requests = 40;
		ExecutorService threads = Executors.newFixedThreadPool(requests);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> statuses = new ArrayList<>();
			for (int i = 0; i < requests; i++) {
				statuses.add(threads.submit(() -> {
					start.await();
					return app.get("/slow-sign-in?user=carol&password=guess").status();
				}));
			}
			start.countDown();
			List<Integer> answered = new ArrayList<>();
			for (Future<Integer> status : statuses) {
				answered.add(status.get(30, TimeUnit.SECONDS));
			}
			assertThat(answered).filteredOn((status) -> status == 401).as("wrong passwords that reached the check")
				.hasSize(3);
			assertThat(answered).filteredOn((status) -> status == 429).hasSize(requests - 3);
		}
		finally {
			threads.shutdownNow();
		}
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void countsTheStatusAnAsynchronousHandlerEndsWithAndGivesBackTheOthers(WebStack stack) {
		StackApp app = apps.on(stack);
		// successes are charged before the handler and given back after it: they never use the budget up
		for (int i = 0; i < 5; i++) {
			assertThat(app.get("/slow-sign-in?user=dave&password=secret").status()).isEqualTo(200);
		}
		for (int i = 0; i < 3; i++) {
			assertThat(app.get("/slow-sign-in?user=dave&password=guess").status()).isEqualTo(401);
		}
		assertThat(app.get("/slow-sign-in?user=dave&password=secret").status()).isEqualTo(429);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void countsAnExceptionNobodyHandlesAsThe500ItEndsWith(WebStack stack) {
		StackApp app = apps.on(stack);
		assertThat(app.get("/explode").status()).isEqualTo(500);
		assertThat(app.get("/explode").status()).isEqualTo(429);
	}

	@ParameterizedTest(name = "{0} {1}")
	@CsvSource({ "SERVLET, flush", "SERVLET, stream-flush", "SERVLET, overflow", "SERVLET, writer-overflow",
			"WEBFLUX, flush" })
	void givesBackAChargeWhoseStatusDoesNotCountBeforeTheClientHasTheStatus(WebStack stack, String commit)
			throws Exception {
		StackApp app = apps.on(stack);
		HeldAnswers held = app.context().getBean(HeldAnswers.class);
		held.reset();
		String user = "gus-" + commit;
		assertThat(app.get("/held-sign-in?user=" + user + "&password=guess").status()).isEqualTo(401);
		try (Socket success = app.open("/held-sign-in?user=" + user + "&password=secret&commit=" + commit)) {
			// the handler committed its status and keeps running: the client has the status
			assertThat(StackApp.readStatus(success.getInputStream())).isEqualTo(200);
			// sent as soon as the status arrived: the success's charge is given back already
			assertThat(app.get("/held-sign-in?user=" + user + "&password=guess").status()).isEqualTo(401);
			held.release();
			assertThat(new String(success.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("welcome");
		}
		finally {
			held.release();
		}
		// the two failures spent the budget
		assertThat(app.get("/held-sign-in?user=" + user + "&password=guess").status()).isEqualTo(429);
	}

	@Test
	void keepsTheChargeOfARequestWhoseClientWentAwayOnWebFlux() throws Exception {
		// on Netty the handler of a request whose client left is cancelled and its response never sent: it keeps
		// the charge taken for it, as a servlet request that fails to write its response does (a servlet handler
		// runs to its end, and settles with the status it ends with)
		StackApp app = apps.on(WebStack.WEBFLUX);
		String budget = app.keyPrefix() + ":fixed:sign-in:param:erin";
		try (java.net.Socket socket = app.open("/slow-sign-in?user=erin&password=secret&millis=300")) {
			// charged before the handler: the budget exists once the request was decided
			await().atMost(Duration.ofSeconds(10)).until(() -> app.redisKeys().contains(budget));
		}
		// past the moment the handler would have answered (a success, given back had it been sent): what is to
		// be shown is that nothing happens then, so this waits rather than polls for an event
		await().pollDelay(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5)).until(() -> true);
		for (int i = 0; i < 2; i++) {
			assertThat(app.get("/slow-sign-in?user=erin&password=guess").status()).isEqualTo(401);
		}
		assertThat(app.get("/slow-sign-in?user=erin&password=guess").status()).isEqualTo(429);
	}

	/**
	 * Holds the successful answers of {@code /held-sign-in} after their status is committed, until the test releases
	 * them.
	 */
	static class HeldAnswers {

		private volatile CompletableFuture<Void> released = new CompletableFuture<>();

		void reset() {
			this.released = new CompletableFuture<>();
		}

		void release() {
			this.released.complete(null);
		}

		CompletableFuture<Void> released() {
			return this.released;
		}

	}

	/**
	 * A sign-in whose success commits its status (in the way {@code commit} names), then keeps running until the test
	 * releases it; a failure is answered at once.
	 */
	@RestController
	static class ServletHeldSignIn {

		private final HeldAnswers held;

		ServletHeldSignIn(HeldAnswers held) {
			this.held = held;
		}

		@GetMapping("/held-sign-in")
		void signIn(@RequestParam String password, @RequestParam(defaultValue = "flush") String commit,
				HttpServletResponse response) throws Exception {
			if (!"secret".equals(password)) {
				response.setStatus(401);
				response.getWriter().write("wrong password");
				return;
			}
			response.setStatus(200);
			int size = 2 * response.getBufferSize();
			switch (commit) {
				case "flush" -> {
					response.getOutputStream().write("welcome".getBytes(StandardCharsets.UTF_8));
					response.flushBuffer();
				}
				case "stream-flush" -> {
					response.getOutputStream().write("welcome".getBytes(StandardCharsets.UTF_8));
					response.getOutputStream().flush();
				}
				// more than the container buffers: it commits the status without being asked to
				case "overflow" -> response.getOutputStream().write(("welcome" + "!".repeat(size)).getBytes(StandardCharsets.UTF_8));
				case "writer-overflow" -> response.getWriter().write("welcome" + "!".repeat(size));
				default -> throw new IllegalArgumentException(commit);
			}
			this.held.released().get(30, TimeUnit.SECONDS);
		}

	}

	/** As {@link ServletHeldSignIn}: the status and a first part of the body flushed, the rest once released. */
	@RestController
	static class ReactiveHeldSignIn {

		private final HeldAnswers held;

		ReactiveHeldSignIn(HeldAnswers held) {
			this.held = held;
		}

		@GetMapping("/held-sign-in")
		Mono<Void> signIn(@RequestParam String password, ServerHttpResponse response) {
			boolean ok = "secret".equals(password);
			response.setStatusCode(ok ? HttpStatus.OK : HttpStatus.UNAUTHORIZED);
			DataBuffer first = response.bufferFactory()
				.wrap((ok ? "welcome" : "wrong password").getBytes(StandardCharsets.UTF_8));
			if (!ok) {
				return response.writeWith(Mono.just(first));
			}
			Flux<Publisher<DataBuffer>> parts = Flux.<Publisher<DataBuffer>>just(Mono.just(first))
				.concatWith(Mono.fromFuture(this.held.released())
					.map((released) -> Mono.just(response.bufferFactory().wrap("!".getBytes(StandardCharsets.UTF_8)))));
			return response.writeAndFlushWith(parts);
		}

	}

	private static String basic(String user) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":pw").getBytes(StandardCharsets.UTF_8));
	}

	private static List<UserDetails> users() {
		return List.of(User.withUsername("alice").password("{noop}pw").roles("USER").build(),
				User.withUsername("bob").password("{noop}pw").roles("USER").build());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class ServletSecurity {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.requestMatchers("/account/**")
				.authenticated()
				.anyRequest()
				.permitAll()).httpBasic(Customizer.withDefaults()).csrf((csrf) -> csrf.disable()).build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(RateLimitCountStatusesOnEveryStackTests.users());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebFluxSecurity
	static class ReactiveSecurity {

		@Bean
		SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
			return http.authorizeExchange((exchanges) -> exchanges.pathMatchers("/account/**")
				.authenticated()
				.anyExchange()
				.permitAll()).httpBasic(Customizer.withDefaults()).csrf((csrf) -> csrf.disable()).build();
		}

		@Bean
		MapReactiveUserDetailsService users() {
			return new MapReactiveUserDetailsService(RateLimitCountStatusesOnEveryStackTests.users());
		}

	}

}

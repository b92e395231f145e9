package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.web.StackApp;
import dev.ratelimit.web.StackApps;
import dev.ratelimit.web.WebStack;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring MVC's asynchronous handlers under a rule that counts failures (401) on Tomcat: each is charged with
 * the status it ends with, not the 200 the response has when the filter chain returns, and a success is given
 * back.
 */
class RateLimitCountStatusesAsyncServletTests {

	private static final StackApps apps = new StackApps(Map.of("ratelimit.rules.async.paths", "/async/**",
			"ratelimit.rules.async.key", "param:user", "ratelimit.rules.async.limit", "2", "ratelimit.rules.async.window",
			"15m", "ratelimit.rules.async.count-statuses", "401"), AsyncEndpoints.class);

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "deferred", "callable", "future", "streaming" })
	void chargesTheStatusAnAsynchronousHandlerEndsWith(String kind) {
		StackApp app = apps.on(WebStack.SERVLET);
		String user = "user-" + kind;
		for (int i = 0; i < 3; i++) {
			StackApp.Reply success = app.get("/async/" + kind + "?user=" + user + "&ok=true");
			assertThat(success.status()).isEqualTo(200);
			assertThat(success.body()).isEqualTo(kind.equals("streaming") ? "streamed" : "welcome");
		}
		for (int i = 0; i < 2; i++) {
			assertThat(app.get("/async/" + kind + "?user=" + user + "&ok=false").status()).isEqualTo(401);
		}
		assertThat(app.get("/async/" + kind + "?user=" + user + "&ok=true").status()).isEqualTo(429);
	}

	@Test
	void givesBackASuccessBeforeTheClientHasTheStatusAnEmitterSent() throws Exception {
		StackApp app = apps.on(WebStack.SERVLET);
		CompletableFuture<Void> released = new CompletableFuture<>();
		app.context().getBean(AsyncEndpoints.class).held = released;
		try {
			assertThat(app.get("/async/deferred?user=hal&ok=false").status()).isEqualTo(401);
			try (Socket success = app.open("/async/held?user=hal&ok=true")) {
				// the emitter sent its status and a first part, and keeps going on another thread
				assertThat(StackApp.readStatus(success.getInputStream())).isEqualTo(200);
				assertThat(app.get("/async/deferred?user=hal&ok=false").status()).isEqualTo(401);
				released.complete(null);
				assertThat(new String(success.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
					.contains("streamed");
			}
		}
		finally {
			released.complete(null);
		}
		assertThat(app.get("/async/deferred?user=hal&ok=false").status()).isEqualTo(429);
	}

	@RestController
	static class AsyncEndpoints {

		/** What the {@code held} handler waits for once it has flushed its status. */
		volatile CompletableFuture<Void> held = CompletableFuture.completedFuture(null);

		/**
		 * Sends a first part of its body from another thread (an emitter flushes what it sends), then waits for
		 * {@link #held} before the rest.
		 */
		@GetMapping("/async/held")
		ResponseEntity<ResponseBodyEmitter> held(@RequestParam boolean ok) {
			CompletableFuture<Void> released = this.held;
			ResponseBodyEmitter emitter = new ResponseBodyEmitter(30_000L);
			CompletableFuture.runAsync(() -> {
				try {
					emitter.send("streamed", MediaType.TEXT_PLAIN);
					released.orTimeout(30, TimeUnit.SECONDS).join();
					emitter.send("!", MediaType.TEXT_PLAIN);
					emitter.complete();
				}
				catch (IOException | RuntimeException ex) {
					emitter.completeWithError(ex);
				}
			});
			return ResponseEntity.status(ok ? HttpStatus.OK : HttpStatus.UNAUTHORIZED).body(emitter);
		}

		/**
		 * A body streamed from another thread: declared as such, since Spring MVC streams a
		 * {@code StreamingResponseBody} only for a handler that says it returns one (as {@code Object} it would be
		 * written as JSON).
		 */
		@GetMapping("/async/streaming")
		ResponseEntity<StreamingResponseBody> streaming(@RequestParam boolean ok) {
			return ResponseEntity.status(ok ? HttpStatus.OK : HttpStatus.UNAUTHORIZED)
				.body((out) -> out.write("streamed".getBytes(StandardCharsets.UTF_8)));
		}

		@GetMapping("/async/{kind}")
		Object answer(@PathVariable String kind, @RequestParam boolean ok) {
			HttpStatus status = ok ? HttpStatus.OK : HttpStatus.UNAUTHORIZED;
			ResponseEntity<String> entity = ResponseEntity.status(status).body(ok ? "welcome" : "wrong password");
			return switch (kind) {
				case "deferred" -> {
					DeferredResult<ResponseEntity<String>> result = new DeferredResult<>();
					CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS).execute(() -> result.setResult(entity));
					yield result;
				}
				case "callable" -> (Callable<ResponseEntity<String>>) () -> entity;
				case "future" -> CompletableFuture.supplyAsync(() -> entity,
						CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS));
				default -> throw new IllegalArgumentException(kind);
			};
		}

	}

}

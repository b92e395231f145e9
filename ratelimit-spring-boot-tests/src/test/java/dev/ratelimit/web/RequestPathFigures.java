package dev.ratelimit.web;

import java.util.Map;

import dev.ratelimit.testsupport.CallPathFigure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A figure of docs/architecture.md, not a test (surefire runs it only when named:
 * {@code -Dtest=RequestPathFigures}): the path of one allowed request through ratelimit on each web stack (one rule
 * by path, keyed by client address; the application warmed up by a first request), as {@link CallPathFigure} prints
 * it.
 */
class RequestPathFigures {

	private static final StackApps apps = new StackApps(Map.of("ratelimit.rules.figures.paths", "/figures",
			"ratelimit.rules.figures.limit", "1000000", "ratelimit.rules.figures.window", "1h"), Hello.class);

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void pathOfOneAllowedRequest(WebStack stack) {
		StackApp app = apps.on(stack);
		CallPathFigure figure = CallPathFigure.measure((stack == WebStack.SERVLET) ? "servlet filter" : "WebFlux",
				() -> assertThat(app.get("/figures").status()).isEqualTo(200));
		assertThat(figure.files()).contains((stack == WebStack.SERVLET) ? "dev.ratelimit.web.servlet.RateLimitFilter"
				: "dev.ratelimit.web.reactive.RateLimitWebFilter", "dev.ratelimit.rules.internal.EngineFlow",
				"dev.ratelimit.redis.RedisRateLimiter");
	}

	@RestController
	static class Hello {

		@GetMapping("/figures")
		String figures() {
			return "ok";
		}

	}

}

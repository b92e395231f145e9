package dev.ratelimit.web;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.ratelimit.testsupport.DocumentationTranscripts;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule from properties whose paths no handler maps gets one warning at startup, naming it and its patterns, on
 * every stack; it still applies. A rule whose paths a handler maps gets none, whether they meet through a variable or
 * a wildcard ({@code /api/greeting/**} and {@code /api/{name}} share {@code /api/greeting}) or in a functional route.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitUnmappedRulesOnEveryStackTests {

	private static final Map<String, String> PROPERTIES = Map.ofEntries(
			Map.entry("ratelimit.rules.routed.paths", "/routed/*"),
			Map.entry("ratelimit.rules.routed.limit", "100"),
			Map.entry("ratelimit.rules.routed.window", "15m"),
			Map.entry("ratelimit.rules.typo.paths", "/apii/**,/apy"),
			Map.entry("ratelimit.rules.typo.limit", "1"),
			Map.entry("ratelimit.rules.typo.window", "15m"),
			Map.entry("ratelimit.rules.api.paths", "/api/greeting/**"),
			Map.entry("ratelimit.rules.api.limit", "100"),
			Map.entry("ratelimit.rules.api.window", "15m"),
			Map.entry("ratelimit.rules.sign-in.paths", "/sign-in"),
			Map.entry("ratelimit.rules.sign-in.limit", "100"),
			Map.entry("ratelimit.rules.sign-in.window", "15m"));

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void warnsOnceOfARuleNoHandlerMapsAndStillAppliesIt(WebStack stack, CapturedOutput output) {
		try (StackApp app = stack.start(PROPERTIES,
				(stack == WebStack.SERVLET) ? ServletRoutes.class : ReactiveRoutes.class)) {
			List<String> warnings = output.getAll().lines().filter((line) -> line.contains("Rate-limit rule '")
					&& line.contains("matches no path a handler of this application maps")).toList();
			assertThat(warnings).singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
				.contains("WARN")
				.contains("'typo'")
				.contains("ratelimit.rules.typo.paths=/apii/**,/apy");
			// as docs/rules.md shows it, but for the time, process and thread the log line starts with
			DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "rules.md"),
					"RateLimitUnmappedRulesOnEveryStackTests", null), warnings.get(0) + "\n");
			assertThat(app.get("/apy").status()).isEqualTo(404);
			assertThat(app.get("/apy").status()).isEqualTo(429);
		}
	}

	/** A functional route nested under a path, on Spring MVC. */
	@Configuration(proxyBeanMethods = false)
	static class ServletRoutes {

		@Bean
		org.springframework.web.servlet.function.RouterFunction<org.springframework.web.servlet.function.ServerResponse> routed() {
			return org.springframework.web.servlet.function.RouterFunctions.route()
				.path("/routed", (routes) -> routes.GET("/{id}",
						(request) -> org.springframework.web.servlet.function.ServerResponse.ok().body("routed")))
				.build();
		}

	}

	/** A functional route nested under a path, on WebFlux. */
	@Configuration(proxyBeanMethods = false)
	static class ReactiveRoutes {

		@Bean
		org.springframework.web.reactive.function.server.RouterFunction<org.springframework.web.reactive.function.server.ServerResponse> routed() {
			return org.springframework.web.reactive.function.server.RouterFunctions.route()
				.path("/routed", (routes) -> routes.GET("/{id}",
						(request) -> org.springframework.web.reactive.function.server.ServerResponse.ok().bodyValue("routed")))
				.build();
		}

	}

}

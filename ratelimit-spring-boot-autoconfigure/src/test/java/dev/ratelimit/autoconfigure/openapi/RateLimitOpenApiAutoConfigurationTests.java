package dev.ratelimit.autoconfigure.openapi;

import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimited;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import dev.ratelimit.rules.HeaderVersion;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.Paths;
import io.swagger.v3.oas.models.SpecVersion;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import org.junit.jupiter.api.Test;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.web.method.HandlerMethod;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitOpenApiAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class,
				RateLimitOpenApiAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.methods=POST",
				"ratelimit.rules.api.limit=10", "ratelimit.rules.api.window=1m",
				"ratelimit.rules.mine.paths=/api/me", "ratelimit.rules.mine.key=principal",
				"ratelimit.rules.mine.limit=5", "ratelimit.rules.mine.window=1h");

	@Test
	void documentsTheOperationsThatRulesOfBothTurnsAndAnnotationsLimit() {
		this.runner.run((context) -> {
			RateLimitOpenApiCustomizer customizer = context.getBean(RateLimitOpenApiCustomizer.class);
			Operation annotated = customizer.customize(operation(), new HandlerMethod(new Handlers(),
					Handlers.class.getDeclaredMethod("annotated")));
			Operation free = customizer.customize(operation(), new HandlerMethod(new Handlers(),
					Handlers.class.getDeclaredMethod("free")));
			OpenAPI document = new OpenAPI(SpecVersion.V31).paths(new Paths()
				.addPathItem("/api/items/{id}", new PathItem().post(operation()).get(operation()))
				.addPathItem("/api/me", new PathItem().get(operation()))
				.addPathItem("/annotated", new PathItem().get(annotated))
				.addPathItem("/free", new PathItem().get(free)));
			customizer.customise(document);
			assertThat(descriptionOf(document, "/api/items/{id}", PathItem.HttpMethod.POST))
				.isEqualTo("Rate limits:\n- `api`: 10 per minute per client address");
			assertThat(descriptionOf(document, "/api/items/{id}", PathItem.HttpMethod.GET)).isNull();
			assertThat(descriptionOf(document, "/api/me", PathItem.HttpMethod.GET))
				.isEqualTo("Rate limits:\n- `mine`: 5 per hour per user");
			assertThat(descriptionOf(document, "/annotated", PathItem.HttpMethod.GET))
				.isEqualTo("Rate limits:\n- `annotated`: 3 per 10 seconds per client address");
			assertThat(document.getPaths().get("/annotated").getGet().getExtensions()).isNull();
			assertThat(document.getPaths().get("/free").getGet().getResponses()).containsOnlyKeys("200");
			assertThat(document.getPaths().get("/api/me").getGet().getResponses()).containsOnlyKeys("200", "429");
		});
	}

	@Test
	void followsTheHeadersAndTheFailureModeInForce() {
		this.runner.withPropertyValues("ratelimit.headers.version=draft-7", "ratelimit.headers.legacy=true",
				"ratelimit.failure-mode=fail-closed")
			.run((context) -> {
				OpenAPI document = new OpenAPI(SpecVersion.V31)
					.paths(new Paths().addPathItem("/api/x", new PathItem().post(operation())));
				context.getBean(RateLimitOpenApiCustomizer.class).customise(document);
				assertThat(document.getPaths().get("/api/x").getPost().getResponses()).containsOnlyKeys("200", "429",
						"503");
				assertThat(document.getComponents().getHeaders().get("RateLimit").getDescription())
					.contains("limit=100, remaining=99, reset=60");
				assertThat(document.getComponents().getHeaders()).containsKeys("X-RateLimit-Limit",
						"X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After");
			});
	}

	@Test
	void describesTheProblemDetailsOnlyWhenTheDefaultHandlerAnswers() {
		this.runner.run((context) -> assertThat(refusalOf(context.getBean(RateLimitOpenApiCustomizer.class)).getContent()
			.get("application/problem+json")
			.getSchema()
			.get$ref()).isEqualTo("#/components/schemas/RateLimitProblem"));
		this.runner.withUserConfiguration(OwnRejectionHandler.class)
			.run((context) -> assertThat(refusalOf(context.getBean(RateLimitOpenApiCustomizer.class))).satisfies(
					(refusal) -> assertThat(refusal.getContent()).isNull(),
					(refusal) -> assertThat(refusal.getHeaders()).containsKey("Retry-After")));
	}

	@Test
	void leavesTheDocumentAloneWhenDisabled() {
		this.runner.withPropertyValues("ratelimit.openapi.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitOpenApiCustomizer.class));
		this.runner.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitOpenApiCustomizer.class));
	}

	@Test
	void backsOffWithoutSpringdoc() {
		this.runner.withClassLoader(new FilteredClassLoader(GlobalOpenApiCustomizer.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitOpenApiCustomizer.class));
	}

	@Test
	void letsTheApplicationsOwnCustomizerWin() {
		this.runner.withUserConfiguration(OwnCustomizer.class)
			.run((context) -> assertThat(context).getBean(RateLimitOpenApiCustomizer.class)
				.isSameAs(context.getBean("myCustomizer")));
	}

	private static Operation operation() {
		return new Operation().responses(new ApiResponses().addApiResponse("200", new ApiResponse().description("OK")));
	}

	private static ApiResponse refusalOf(RateLimitOpenApiCustomizer customizer) {
		OpenAPI document = new OpenAPI(SpecVersion.V31)
			.paths(new Paths().addPathItem("/api/x", new PathItem().post(operation())));
		customizer.customise(document);
		return document.getPaths().get("/api/x").getPost().getResponses().get("429");
	}

	private static String descriptionOf(OpenAPI document, String path, PathItem.HttpMethod method) {
		return document.getPaths().get(path).readOperationsMap().get(method).getDescription();
	}

	static class Handlers {

		@RateLimited(name = "annotated", limit = 3, window = "10s")
		String annotated() {
			return "limited";
		}

		String free() {
			return "free";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRejectionHandler {

		@Bean
		RateLimitRejectionHandler plainText() {
			return (rejection) -> ResponseEntity.status(429).body("slow down");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnCustomizer {

		@Bean
		RateLimitOpenApiCustomizer myCustomizer(RateLimitRuleRegistry rules) {
			return new RateLimitOpenApiCustomizer(rules,
					new LimitedOperations(HeaderVersion.DRAFT_9, true, false, FailureMode.FAIL_OPEN, true));
		}

	}

}

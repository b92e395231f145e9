package dev.ratelimit.web;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ratelimit.RateLimited;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * springdoc's OpenAPI document, fetched over HTTP on every stack: the operations a rule from properties or a
 * {@code @RateLimited} handler limits get their 429 (the problem detail we answer), the rate-limit headers we send
 * and their policies in words; a fail-closed application's get a 503 too; every other operation is as springdoc
 * wrote it; the document parses as OpenAPI 3.1 without a message; {@code ratelimit.openapi.enabled=false} leaves it
 * as springdoc wrote it.
 */
class RateLimitOpenApiOnEveryStackTests {

	// the document of this test's endpoints only: springdoc writes one of the harness's without its path parameter
	private static final Map<String, String> PROPERTIES = Map.of("springdoc.api-docs.enabled", "true",
			"springdoc.paths-to-match", "/books,/books/**,/authors",
			"ratelimit.rules.books.paths", "/books", "ratelimit.rules.books.methods", "GET",
			"ratelimit.rules.books.limit", "100", "ratelimit.rules.books.window", "1m");

	private static final StackApps limited = new StackApps(PROPERTIES, Library.class);

	private static final StackApps failClosed = new StackApps(with("ratelimit.failure-mode", "fail-closed"),
			Library.class);

	private static final StackApps off = new StackApps(with("ratelimit.openapi.enabled", "false"), Library.class);

	private static final ObjectMapper json = new ObjectMapper();

	@AfterAll
	static void stop() {
		limited.close();
		failClosed.close();
		off.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void documentsTheLimitedOperationsAndOnlyThem(WebStack stack) throws Exception {
		JsonNode document = document(limited.on(stack));
		assertThat(operationsWith(document, "429")).containsExactly("GET /books", "GET /books/{id}");
		assertThat(operationsWith(document, "503")).isEmpty();
		JsonNode books = document.at("/paths/~1books/get");
		assertThat(books.at("/description").asText())
			.isEqualTo("Lists the books.\n\nRate limits:\n- `books`: 100 per minute per client address");
		assertThat(books.at("/responses/429/content/application~1problem+json/schema/$ref").asText())
			.isEqualTo("#/components/schemas/RateLimitProblem");
		assertThat(headerNames(books.at("/responses/429"))).containsExactly("RateLimit", "RateLimit-Policy",
				"Retry-After");
		assertThat(headerNames(books.at("/responses/200"))).containsExactly("RateLimit", "RateLimit-Policy");
		JsonNode book = document.at("/paths/~1books~1{id}/get");
		assertThat(book.at("/description").asText()).isEqualTo(
				"Rate limits:\n- `book`: 1 per minute per value of header X-Api-Key");
		assertThat(document.toString()).doesNotContain("x-ratelimit");
		assertThat(document.at("/openapi").asText()).isEqualTo("3.1.0");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void documentsWhatARefusalReallyCarries(WebStack stack) throws Exception {
		StackApp app = limited.on(stack);
		JsonNode document = document(app);
		assertThat(app.get("/books/7", "X-Api-Key", "reader").status()).isEqualTo(200);
		StackApp.Reply refused = app.get("/books/7", "X-Api-Key", "reader");
		assertThat(refused.status()).isEqualTo(429);
		JsonNode documented = document.at("/paths/~1books~1{id}/get/responses/429");
		assertThat(documented.at("/content").fieldNames()).toIterable()
			.containsExactly(refused.header("Content-Type").orElseThrow());
		for (String header : headerNames(documented)) {
			assertThat(refused.header(header)).as(header).isPresent();
		}
		List<String> members = new ArrayList<>();
		json.readTree(refused.body()).fieldNames().forEachRemaining(members::add);
		List<String> properties = new ArrayList<>();
		document.at("/components/schemas/RateLimitProblem/properties").fieldNames().forEachRemaining(properties::add);
		assertThat(members).containsExactlyInAnyOrderElementsOf(properties);
		assertThat(document.at("/components/schemas/RateLimitProblem/properties/violatedPolicies/type").asText())
			.isEqualTo("array");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void documentsTheServiceUnavailableOfAFailClosedApplication(WebStack stack) throws Exception {
		JsonNode document = document(failClosed.on(stack));
		assertThat(operationsWith(document, "503")).containsExactly("GET /books", "GET /books/{id}");
		JsonNode unavailable = document.at("/paths/~1books/get/responses/503");
		assertThat(unavailable.at("/content/application~1problem+json/schema/$ref").asText())
			.isEqualTo("#/components/schemas/RateLimitUnavailableProblem");
		assertThat(headerNames(unavailable)).containsExactly("Retry-After");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void leavesEveryOtherOperationAsSpringdocWroteIt(WebStack stack) throws Exception {
		JsonNode limitedDocument = document(limited.on(stack));
		JsonNode plain = document(off.on(stack));
		assertThat(operationsWith(plain, "429")).isEmpty();
		assertThat(plain.toString()).doesNotContain("RateLimit");
		ObjectNode others = ((ObjectNode) limitedDocument.get("paths").deepCopy());
		others.remove(List.of("/books", "/books/{id}"));
		ObjectNode plainOthers = ((ObjectNode) plain.get("paths").deepCopy());
		plainOthers.remove(List.of("/books", "/books/{id}"));
		assertThat(others.properties()).extracting(Map.Entry::getKey).containsExactly("/authors");
		assertThat(others).isEqualTo(plainOthers);
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void showsTheDocumentedFragment(WebStack stack) throws Exception {
		JsonNode document = document(limited.on(stack));
		ObjectNode fragment = json.createObjectNode();
		fragment.putObject("paths").set("/books", document.at("/paths/~1books"));
		ObjectNode components = fragment.putObject("components");
		components.set("headers", document.at("/components/headers"));
		components.putObject("schemas").set("RateLimitProblem", document.at("/components/schemas/RateLimitProblem"));
		DocumentationTranscripts.assertShows(
				DocumentationTranscripts.text(Path.of("..", "docs", "openapi.md"), "RateLimitOpenApiOnEveryStackTests",
						null),
				json.writerWithDefaultPrettyPrinter().writeValueAsString(fragment) + "\n");
	}

	/** The document, checked by a real OpenAPI 3.1 parser. */
	private static JsonNode document(StackApp app) throws Exception {
		StackApp.Reply reply = app.get("/v3/api-docs");
		assertThat(reply.status()).isEqualTo(200);
		ParseOptions options = new ParseOptions();
		options.setResolve(true);
		SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(reply.body(), null, options);
		assertThat(parsed.getMessages()).isEmpty();
		assertThat(parsed.getOpenAPI()).isNotNull();
		return json.readTree(reply.body());
	}

	private static List<String> operationsWith(JsonNode document, String status) {
		List<String> found = new ArrayList<>();
		document.get("paths").properties().forEach((path) -> path.getValue().properties().forEach((operation) -> {
			if (operation.getValue().at("/responses/" + status).isObject()) {
				found.add(operation.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey());
			}
		}));
		return found;
	}

	private static List<String> headerNames(JsonNode response) {
		List<String> names = new ArrayList<>();
		response.path("headers").fieldNames().forEachRemaining(names::add);
		return names;
	}

	private static Map<String, String> with(String name, String value) {
		Map<String, String> properties = new HashMap<>(PROPERTIES);
		properties.put(name, value);
		return properties;
	}

	/** One operation limited by a rule from properties, one by its annotation, one free. */
	@RestController
	static class Library {

		/**
		 * Lists the books.
		 * @return their titles
		 */
		@GetMapping("/books")
		@Operation(description = "Lists the books.")
		List<String> books() {
			return List.of("Dune");
		}

		@GetMapping("/books/{id}")
		@RateLimited(name = "book", limit = 1, window = "1m", key = "header:X-Api-Key")
		Map<String, String> book(@PathVariable String id) {
			return new LinkedHashMap<>(Map.of("id", id, "title", "Dune"));
		}

		@GetMapping("/authors")
		List<String> authors() {
			return List.of("Frank Herbert");
		}

	}

}

package dev.ratelimit.autoconfigure.openapi;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.FailureMode;
import dev.ratelimit.rules.HeaderVersion;
import dev.ratelimit.rules.RateLimitRule;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.SpecVersion;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import org.jspecify.annotations.Nullable;

/**
 * What an operation that rules limit gets in the OpenAPI document: the rate-limit headers we send on its responses,
 * a {@code 429} with the problem detail we answer (and a {@code 503} when {@code ratelimit.failure-mode} is
 * {@code fail-closed}), and its policies in words in its description; the headers and bodies are components,
 * written once per document.
 */
final class LimitedOperations {

	static final String PROBLEM_MEDIA_TYPE = "application/problem+json";

	static final String LIMITED_PROBLEM = "RateLimitProblem";

	static final String UNAVAILABLE_PROBLEM = "RateLimitUnavailableProblem";

	private static final String HEADERS = "#/components/headers/";

	private final HeaderVersion version;

	private final boolean headers;

	private final boolean legacy;

	private final FailureMode failureMode;

	private final boolean problemDetails;

	/**
	 * Creates the documentation of limited operations as the application answers them.
	 * @param version the draft the {@code RateLimit} and {@code RateLimit-Policy} fields follow
	 * @param headers whether those fields are sent ({@code ratelimit.headers.enabled})
	 * @param legacy whether the {@code X-RateLimit-*} fields are sent too
	 * @param failureMode what a request meets when no decision can be reached
	 * @param problemDetails whether refusals are answered with the default rejection handler's problem details,
	 * rather than with an application's own handler's body, which is then left undescribed
	 */
	LimitedOperations(HeaderVersion version, boolean headers, boolean legacy, FailureMode failureMode,
			boolean problemDetails) {
		this.version = version;
		this.headers = headers;
		this.legacy = legacy;
		this.failureMode = failureMode;
		this.problemDetails = problemDetails;
	}

	/**
	 * Documents an operation that rules limit.
	 * @param openApi the document, whose components get the headers and bodies
	 * @param operation the operation
	 * @param rules the rules that limit it, in the order they are checked
	 */
	void document(OpenAPI openApi, Operation operation, List<RateLimitRule> rules) {
		SpecVersion spec = (openApi.getSpecVersion() != null) ? openApi.getSpecVersion() : SpecVersion.V30;
		Components components = (openApi.getComponents() != null) ? openApi.getComponents() : new Components();
		openApi.setComponents(components);
		Map<String, Header> sent = sentHeaders(rules, spec);
		sent.forEach((name, header) -> addComponent(components, name, header));
		ApiResponses responses = (operation.getResponses() != null) ? operation.getResponses() : new ApiResponses();
		operation.setResponses(responses);
		responses.values().forEach((response) -> withHeaders(response, sent.keySet()));
		boolean refuses = rules.stream().anyMatch((rule) -> !rule.neverRefuses());
		if (refuses && !responses.containsKey("429")) {
			if (this.problemDetails) {
				addSchema(components, LIMITED_PROBLEM, problem(spec, true));
			}
			addComponent(components, "Retry-After", retryAfter(spec));
			responses.addApiResponse("429", refusal("Too Many Requests: a rate limit of this operation is exhausted; "
					+ "retry after the seconds of Retry-After", LIMITED_PROBLEM, sent.keySet()));
		}
		if (refuses && this.failureMode == FailureMode.FAIL_CLOSED && !responses.containsKey("503")) {
			if (this.problemDetails) {
				addSchema(components, UNAVAILABLE_PROBLEM, problem(spec, false));
			}
			addComponent(components, "Retry-After", retryAfter(spec));
			responses.addApiResponse("503", refusal("Service Unavailable: the rate limiter could not reach a decision "
					+ "(ratelimit.failure-mode is fail-closed)", UNAVAILABLE_PROBLEM, List.of()));
		}
		operation.setDescription(describe(operation.getDescription(), rules));
	}

	/** The operation's description, then its policies, one line each. */
	private static String describe(@Nullable String description, List<RateLimitRule> rules) {
		StringBuilder text = new StringBuilder();
		if (description != null && !description.isBlank()) {
			text.append(description.strip()).append("\n\n");
		}
		text.append("Rate limits:");
		for (RateLimitRule rule : rules) {
			String mode = rule.shadow() ? " (shadow mode: observed, never refused)"
					: (!rule.enforce()) ? " (soft: never refused)" : "";
			rule.describePolicies().forEach((policy, words) -> text.append("\n- `").append(policy).append("`: ")
				.append(words).append(mode));
		}
		return text.toString();
	}

	/** The rate-limit headers a limited operation's answers carry, by name. */
	private Map<String, Header> sentHeaders(List<RateLimitRule> rules, SpecVersion spec) {
		Map<String, Header> sent = new LinkedHashMap<>();
		// drafts before 12 announce limits per window only, never limits of requests in flight
		boolean windows = rules.stream().anyMatch((rule) -> !rule.limits().isEmpty());
		if (this.headers && (windows || this.version == HeaderVersion.DRAFT_12)) {
			sent.put("RateLimit", header(spec, "string", state()));
			sent.put("RateLimit-Policy", header(spec, "string", policy()));
		}
		if (this.legacy && windows) {
			sent.put("X-RateLimit-Limit", header(spec, "integer", "The tightest limit's permits per window."));
			sent.put("X-RateLimit-Remaining", header(spec, "integer", "What the tightest limit has left in its window."));
			sent.put("X-RateLimit-Reset", header(spec, "integer", "Seconds until the tightest limit's window resets."));
		}
		return sent;
	}

	private String state() {
		return switch (this.version) {
			case DRAFT_7 -> "The tightest limit's state (draft-ietf-httpapi-ratelimit-headers-07): its permits, what is "
					+ "left and the seconds until it resets, such as `limit=100, remaining=99, reset=60`.";
			case DRAFT_9 -> "Each policy's state (draft-ietf-httpapi-ratelimit-headers-09): what is left (r) and the "
					+ "seconds until it resets (t), such as `\"api\";r=99;t=60`.";
			case DRAFT_12 -> "Each policy's state (draft-ietf-httpapi-ratelimit-headers-12): what is left (r), the "
					+ "seconds until it resets (t) and the partition key (pk), such as `\"api\";r=99;t=60;pk=:...:`.";
		};
	}

	private String policy() {
		return switch (this.version) {
			case DRAFT_7 -> "Each limit's permits and window in seconds (draft-ietf-httpapi-ratelimit-headers-07), such "
					+ "as `100;w=60`.";
			case DRAFT_9 -> "Each policy by name (draft-ietf-httpapi-ratelimit-headers-09): its quota (q) and window in "
					+ "seconds (w), such as `\"api\";q=100;w=60`.";
			case DRAFT_12 -> "Each policy by name (draft-ietf-httpapi-ratelimit-headers-12): its quota (q), window in "
					+ "seconds (w), quota unit (qu) where it is not requests and partition key (pk), such as "
					+ "`\"api\";q=100;w=60;pk=:...:`.";
		};
	}

	private static Header retryAfter(SpecVersion spec) {
		return header(spec, "integer", "Seconds to wait before the next request.");
	}

	private ApiResponse refusal(String description, String problem, Iterable<String> headers) {
		ApiResponse response = new ApiResponse().description(description);
		if (this.problemDetails) {
			response.content(new Content().addMediaType(PROBLEM_MEDIA_TYPE,
					new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + problem))));
		}
		return withHeaders(response, headers).addHeaderObject("Retry-After", new Header().$ref(HEADERS + "Retry-After"));
	}

	private static ApiResponse withHeaders(ApiResponse response, Iterable<String> headers) {
		if (response.get$ref() == null) {
			for (String name : headers) {
				if (response.getHeaders() == null || !response.getHeaders().containsKey(name)) {
					response.addHeaderObject(name, new Header().$ref(HEADERS + name));
				}
			}
		}
		return response;
	}

	/** The problem detail the rejection handler answers: RFC 9457's members, and the violated policies of a 429. */
	private static Schema<Object> problem(SpecVersion spec, boolean limited) {
		Schema<Object> problem = typed(spec, "object", limited
				? "An RFC 9457 problem detail: a rate limit refused the request."
				: "An RFC 9457 problem detail: no decision could be reached and the request was refused.");
		problem.addProperty("type", formatted(typed(spec, "string", "about:blank, RFC 9457's default."), "uri"));
		problem.addProperty("title", typed(spec, "string", limited ? "Too Many Requests." : "Service Unavailable."));
		problem.addProperty("status", formatted(typed(spec, "integer", limited ? "429." : "503."), "int32"));
		problem.addProperty("detail", typed(spec, "string", "Why, in a sentence for the client's developer."));
		problem.addProperty("instance", formatted(typed(spec, "string", "The request's path."), "uri-reference"));
		if (limited) {
			Schema<Object> policies = typed(spec, "array",
					"The policies that refused the request, named as in RateLimit-Policy.");
			policies.setItems(typed(spec, "string", null));
			problem.addProperty("violatedPolicies", policies);
		}
		return problem;
	}

	private static Schema<Object> formatted(Schema<Object> schema, String format) {
		schema.setFormat(format);
		return schema;
	}

	private static Header header(SpecVersion spec, String type, String description) {
		return new Header().description(description).schema(typed(spec, type, null));
	}

	/** A schema of a type, written as the document's version of OpenAPI writes types. */
	private static Schema<Object> typed(SpecVersion spec, String type, @Nullable String description) {
		Schema<Object> schema = new Schema<>(spec);
		schema.setType(type);
		schema.addType(type);
		schema.setDescription(description);
		return schema;
	}

	private static void addComponent(Components components, String name, Header header) {
		if (components.getHeaders() == null || !components.getHeaders().containsKey(name)) {
			components.addHeaders(name, header);
		}
	}

	private static void addSchema(Components components, String name, Schema<Object> schema) {
		if (components.getSchemas() == null || !components.getSchemas().containsKey(name)) {
			components.addSchemas(name, schema);
		}
	}

}

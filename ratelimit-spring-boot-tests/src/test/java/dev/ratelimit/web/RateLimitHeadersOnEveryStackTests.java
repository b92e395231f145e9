package dev.ratelimit.web;

import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.ratelimit.testsupport.RateLimitFields;
import dev.ratelimit.testsupport.RateLimitFields.Member;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The draft-12 rate-limit headers ({@code ratelimit.headers.version=draft-12}) on every stack, read with an RFC 8941
 * parser, two instances of one service sharing one Redis: the partition key {@code pk} is the same on both for a rule
 * and a key, differs between keys and shows none of the key, and a limit of requests in flight is announced in
 * {@code concurrent-requests}.
 */
class RateLimitHeadersOnEveryStackTests {

	private static final Map<String, String> RULES = Map.of("ratelimit.rules.api.paths", "/headers/api",
			"ratelimit.rules.api.key", "header:X-User", "ratelimit.rules.api.limit", "10",
			"ratelimit.rules.api.window", "1m", "ratelimit.rules.export.paths", "/headers/export",
			"ratelimit.rules.export.key", "header:X-User", "ratelimit.rules.export.concurrency", "2",
			"ratelimit.headers.version", "draft-12", "ratelimit.headers.partition-key-secret", "shared-by-instances");

	/** Per stack, two instances sharing a key prefix and a secret, as two instances of one service have. */
	private static final Map<WebStack, List<StackApp>> instances = new EnumMap<>(WebStack.class);

	@AfterAll
	static void stop() {
		instances.values().forEach((apps) -> apps.forEach(StackApp::close));
	}

	private static synchronized List<StackApp> instances(WebStack stack) {
		return instances.computeIfAbsent(stack, (key) -> {
			Map<String, String> properties = new HashMap<>(RULES);
			properties.put("ratelimit.key-prefix", "headers-" + UUID.randomUUID().toString().substring(0, 8));
			return List.of(stack.start(properties, Endpoints.class), stack.start(properties, Endpoints.class));
		});
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void thePartitionKeyIsTheSameOnEveryInstanceForAKeyAndShowsNothingOfIt(WebStack stack) {
		List<StackApp> apps = instances(stack);
		String alice = "alice-" + UUID.randomUUID().toString().substring(0, 8);
		StackApp.Reply first = apps.get(0).get("/headers/api", "X-User", alice);
		StackApp.Reply second = apps.get(1).get("/headers/api", "X-User", alice);
		StackApp.Reply bob = apps.get(1).get("/headers/api", "X-User", "bob-" + alice);
		Member policy = single(first.header("RateLimit-Policy").orElseThrow());
		assertThat(policy.value()).isEqualTo("api");
		assertThat(policy.params()).containsOnlyKeys("q", "w", "pk");
		assertThat(policy.integer("q")).isEqualTo(10);
		assertThat(policy.integer("w")).isEqualTo(60);
		assertThat(policy.bytes("pk")).hasSize(12);
		Member firstState = single(first.header("RateLimit").orElseThrow());
		Member secondState = single(second.header("RateLimit").orElseThrow());
		assertThat(firstState.integer("r")).isEqualTo(9);
		// one budget on both instances, and one partition key
		assertThat(secondState.integer("r")).isEqualTo(8);
		assertThat(firstState.bytes("pk")).isEqualTo(policy.bytes("pk")).isEqualTo(secondState.bytes("pk"));
		assertThat(single(bob.header("RateLimit").orElseThrow()).bytes("pk")).isNotEqualTo(firstState.bytes("pk"));
		for (String field : List.of("RateLimit", "RateLimit-Policy")) {
			assertThat(first.header(field).orElseThrow()).doesNotContain(alice);
			assertThat(new String(single(first.header(field).orElseThrow()).bytes("pk"), StandardCharsets.ISO_8859_1))
				.doesNotContain(alice);
		}
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void aLimitOfRequestsInFlightIsAnnouncedInConcurrentRequests(WebStack stack) {
		StackApp app = instances(stack).get(0);
		StackApp.Reply reply = app.get("/headers/export", "X-User", "carol-" + UUID.randomUUID());
		assertThat(reply.status()).isEqualTo(200);
		Member policy = single(reply.header("RateLimit-Policy").orElseThrow());
		assertThat(policy.value()).isEqualTo("export");
		assertThat(policy.params()).containsOnlyKeys("q", "qu", "pk").containsEntry("qu", "concurrent-requests");
		assertThat(policy.integer("q")).isEqualTo(2);
		Member state = single(reply.header("RateLimit").orElseThrow());
		assertThat(state.params()).containsOnlyKeys("r", "pk");
		// the request holds one of the two slots while its headers are written
		assertThat(state.integer("r")).isEqualTo(1);
	}

	private static Member single(String value) {
		List<Member> members = RateLimitFields.list(value);
		assertThat(members).hasSize(1);
		return members.get(0);
	}

	@RestController
	static class Endpoints {

		@GetMapping("/headers/api")
		String api() {
			return "api";
		}

		@GetMapping("/headers/export")
		String export() {
			return "export";
		}

	}

}

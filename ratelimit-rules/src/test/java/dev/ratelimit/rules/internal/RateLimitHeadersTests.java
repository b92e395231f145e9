package dev.ratelimit.rules.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.rules.HeaderVersion;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.testsupport.RateLimitFields;
import dev.ratelimit.testsupport.RateLimitFields.Member;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimitHeaders} in each version of the draft, read with an RFC 8941 parser: draft 9 as before, draft 7's
 * combined field, draft 12's partition key and quota unit.
 */
class RateLimitHeadersTests {

	private static final RateLimitRule API = RateLimitRule
		.builder("api", List.of(new RateLimit(100, Duration.ofMinutes(1))), Algorithm.FIXED_WINDOW,
				new RuleKey.ClientAddress(), "test")
		.build();

	private static final RateLimitRule COSTLY = API.toBuilder().cost(5).build();

	private final RateLimit slots = new RateLimit(5, Duration.ofSeconds(30));

	@Test
	void draft9SendsANamedItemPerWindowAndLeavesRequestsInFlightOut() {
		HttpHeaders headers = headers(HeaderVersion.DRAFT_9, null, window(API, "api:ip:10.0.0.1", 99),
				inFlight("api:ip:10.0.0.1", 4));
		assertThat(headers.getFirst("RateLimit-Policy")).isEqualTo("\"api\";q=100;w=60");
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"api\";r=99;t=30");
	}

	@Test
	void draft7SendsEveryLimitsQuotaAndTheTightestLimitsStateInOneField() {
		AppliedLimit perSecond = new AppliedLimit("api-1s", new RateLimit(10, Duration.ofSeconds(1)),
				RateLimitDecision.allowed(10, 2, Duration.ofSeconds(1)), false, API, "api:ip:10.0.0.1");
		HttpHeaders headers = headers(HeaderVersion.DRAFT_7, null, window(API, "api:ip:10.0.0.1", 99), perSecond);
		assertThat(RateLimitFields.list(headers.getFirst("RateLimit-Policy"))).containsExactly(
				new Member(100L, Map.of("w", 60L)), new Member(10L, Map.of("w", 1L)));
		assertThat(headers.getFirst("RateLimit")).isEqualTo("limit=10, remaining=2, reset=1");
		assertThat(RateLimitFields.dictionary(headers.getFirst("RateLimit")))
			.containsExactly(Map.entry("limit", 10L), Map.entry("remaining", 2L),
					Map.entry("reset", 1L));
	}

	@Test
	void draft12AddsThePartitionKeyToBothFields() {
		HttpHeaders headers = headers(HeaderVersion.DRAFT_12, "s3cret", window(API, "api:ip:10.0.0.1", 99));
		Member policy = single(headers.getFirst("RateLimit-Policy"));
		Member state = single(headers.getFirst("RateLimit"));
		assertThat(policy.value()).isEqualTo("api");
		assertThat(policy.params()).containsOnlyKeys("q", "w", "pk");
		assertThat(policy.integer("q")).isEqualTo(100);
		assertThat(policy.integer("w")).isEqualTo(60);
		assertThat(policy.bytes("pk")).hasSize(12);
		assertThat(state.params()).containsOnlyKeys("r", "t", "pk");
		assertThat(state.integer("r")).isEqualTo(99);
		assertThat(state.integer("t")).isEqualTo(30);
		assertThat(state.bytes("pk")).isEqualTo(policy.bytes("pk"));
	}

	@Test
	void draft12AnnouncesRequestsInFlightInTheirOwnUnit() {
		HttpHeaders headers = headers(HeaderVersion.DRAFT_12, null, window(API, "api:ip:10.0.0.1", 99),
				inFlight("api:ip:10.0.0.1", 4));
		List<Member> policies = RateLimitFields.list(headers.getFirst("RateLimit-Policy"));
		List<Member> states = RateLimitFields.list(headers.getFirst("RateLimit"));
		assertThat(policies).extracting(Member::value).containsExactly("api", "api-concurrency");
		assertThat(policies.get(1).params()).containsOnlyKeys("q", "qu", "pk");
		assertThat(policies.get(1).integer("q")).isEqualTo(5);
		assertThat(policies.get(1).params()).containsEntry("qu", "concurrent-requests");
		assertThat(states.get(1).value()).isEqualTo("api-concurrency");
		assertThat(states.get(1).params()).containsOnlyKeys("r", "pk");
		assertThat(states.get(1).integer("r")).isEqualTo(4);
	}

	@Test
	void draft12NamesTheUnitOfARuleWhoseRequestsCostMoreThanOnePermit() {
		HttpHeaders headers = headers(HeaderVersion.DRAFT_12, null, window(COSTLY, "api:ip:10.0.0.1", 95));
		assertThat(single(headers.getFirst("RateLimit-Policy")).params()).containsEntry("qu", "cost-units");
		HttpHeaders plain = headers(HeaderVersion.DRAFT_12, null, window(API, "api:ip:10.0.0.1", 95));
		assertThat(single(plain.getFirst("RateLimit-Policy")).params()).doesNotContainKey("qu");
	}

	@Test
	void thePartitionKeyIsTheSameOnEveryInstanceForARuleAndAKeyAndTellsNeitherKeysNorRulesApart() {
		byte[] first = pk("s3cret", "api:ip:10.0.0.1");
		assertThat(pk("s3cret", "api:ip:10.0.0.1")).isEqualTo(first);
		assertThat(pk("s3cret", "api:ip:10.0.0.2")).isNotEqualTo(first);
		assertThat(pk("s3cret", "other:ip:10.0.0.1")).isNotEqualTo(first);
		assertThat(pk("another secret", "api:ip:10.0.0.1")).isNotEqualTo(first);
		assertThat(pk(null, "api:ip:10.0.0.1")).isEqualTo(pk(null, "api:ip:10.0.0.1"))
			.isNotEqualTo(first);
		HttpHeaders headers = headers(HeaderVersion.DRAFT_12, "s3cret", window(API, "api:principal:alice", 99));
		assertThat(headers.getFirst("RateLimit")).doesNotContain("alice");
		assertThat(new String(single(headers.getFirst("RateLimit")).bytes("pk"), StandardCharsets.ISO_8859_1))
			.doesNotContain("alice");
	}

	private static byte[] pk(@Nullable String secret, String partition) {
		// a builder of its own per call: another instance of the application
		return single(headers(HeaderVersion.DRAFT_12, secret, window(API, partition, 1)).getFirst("RateLimit"))
			.bytes("pk");
	}

	private static Member single(@Nullable String value) {
		assertThat(value).isNotNull();
		List<Member> members = RateLimitFields.list(value);
		assertThat(members).hasSize(1);
		return members.get(0);
	}

	private static AppliedLimit window(RateLimitRule rule, String partition, long remaining) {
		RateLimit limit = rule.limits().get(0);
		return new AppliedLimit(rule.name(), limit,
				RateLimitDecision.allowed(limit.limit(), remaining, Duration.ofSeconds(30)), false, rule, partition);
	}

	private AppliedLimit inFlight(String partition, long remaining) {
		return new AppliedLimit("api", this.slots, RateLimitDecision.allowed(5, remaining, Duration.ofSeconds(30)),
				true, API, partition);
	}

	private static HttpHeaders headers(HeaderVersion version, @Nullable String secret, AppliedLimit... applied) {
		return new RateLimitHeaders(version, true, false, secret)
			.of(new RateLimitVerdict(List.of(applied), List.of(), false, null));
	}

}

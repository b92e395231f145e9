package dev.ratelimit.rules.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailureMode;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.rules.internal.RateLimitEnforcer.RequestKeys;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import dev.ratelimit.rules.LimitDefinition;
import dev.ratelimit.rules.MissingKey;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.rules.TestRules;

/**
 * Each rule's decision on a real Redis is an observation named {@code ratelimit.decision}, tagged with
 * the rule and the outcome, started before the limiter is asked and stopped once it answered.
 */
class ObservationRateLimitObserverTests {

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	@Test
	void observesEveryDecisionWithItsRuleAndOutcome() {
		RateLimitRuleFactory factory = TestRules.factory(Algorithm.GCRA);
		RateLimitRule rule = factory.create("login", List.of("/login"), List.of(),
				List.of(new LimitDefinition("", 1L, Duration.ofMinutes(1), null)), null, null, MissingKey.CLIENT_ADDRESS,
				1, null);
		RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.GCRA, RedisTestServer.shared().template())
			.keyPrefix("observed-" + UUID.randomUUID().toString().substring(0, 8))
			.build();
		RateLimitRules rules = new RateLimitRules(List.of(rule), factory, Map.of(Algorithm.GCRA, limiter));
		RateLimitObserver observer = RateLimitObserver.composite(
				List.of(new ObservationRateLimitObserver(this.observations), RateLimitObserver.NONE));
		RateLimitEnforcer enforcer = new RateLimitEnforcer(rules, FailureMode.FAIL_OPEN, null, observer, RateLimitPlans.NONE,
				dev.ratelimit.RateLimitOverrides.NONE,
				java.time.Clock.systemUTC());
		RequestKeys keys = new RequestKeys() {

			@Override
			public String keyValue(RateLimitRule rule) {
				return "203.0.113.9";
			}

			@Override
			public String clientAddress() {
				return "203.0.113.9";
			}

		};
		assertThat(enforcer.enforce(() -> "POST /login", List.of(rule), keys).allowed()).isTrue();
		assertThat(enforcer.enforce(() -> "POST /login", List.of(rule), keys).allowed()).isFalse();
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo(ObservationRateLimitObserver.NAME, 2);
		assertThat(this.observations).hasAnObservation((observation) -> observation
			.hasNameEqualTo(ObservationRateLimitObserver.NAME)
			.hasLowCardinalityKeyValue("rule", "login")
			.hasLowCardinalityKeyValue("outcome", "allowed"));
		assertThat(this.observations).hasAnObservation((observation) -> observation
			.hasNameEqualTo(ObservationRateLimitObserver.NAME)
			.hasLowCardinalityKeyValue("rule", "login")
			.hasLowCardinalityKeyValue("outcome", "rejected")
			.doesNotHaveHighCardinalityKeyValueWithKey("key"));
		assertThat(this.observations).hasObservationWithNameEqualTo(ObservationRateLimitObserver.NAME)
			.that()
			.hasBeenStarted()
			.hasBeenStopped();
		// no scope left open on the thread
		assertThat(this.observations.getCurrentObservation()).isNull();
	}

}

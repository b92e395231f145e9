package dev.ratelimit.web;

import dev.ratelimit.testsupport.RateLimitFields;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an instance of a rule with {@code prefetch} holds goes back when it shuts down, on every stack and a real
 * Redis: the next instance admits it. A class of its own: it starts and stops applications, and a WebFlux application
 * stopped takes Reactor Netty's shared event loops with it, which an application another test shares still uses.
 */
class RateLimitPrefetchShutdownOnEveryStackTests {

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void anInstanceThatShutsDownGivesBackWhatItHeldForTheNextToAdmit(WebStack stack) {
		Map<String, String> shared = new HashMap<>(RateLimitPrefetchOnEveryStackTests.HOT);
		shared.put("ratelimit.key-prefix", "prefetch-" + UUID.randomUUID().toString().substring(0, 8));
		try (StackApp first = stack.start(shared)) {
			// a batch of 2: this request's permit, and one held (Redis left 3, and the instance holds 1)
			assertThat(first.get("/api/orders", "X-Api-Key", "alpha").header("RateLimit")
				.map(RateLimitFields::withoutPartitionKeys)).hasValue("\"hot\";r=4;t=3600");
		}
		try (StackApp second = stack.start(shared)) {
			int admitted = 0;
			for (int i = 0; i < 6; i++) {
				if (second.get("/api/orders", "X-Api-Key", "alpha").status() == 200) {
					admitted++;
				}
			}
			assertThat(admitted).as("the 4 left of 5, the permit the first held given back at its shutdown").isEqualTo(4);
		}
	}

}

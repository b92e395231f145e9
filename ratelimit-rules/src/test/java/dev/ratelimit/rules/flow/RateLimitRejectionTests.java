package dev.ratelimit.rules.flow;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RateLimitRejection}: each way a request is refused is a case of its own, with what a handler
 * needs of it.
 */
class RateLimitRejectionTests {

	@Test
	void aDeniedAddressIsRefusedBeforeAnyRule() {
		RateLimitRejection rejection = RateLimitRejection.denied("GET", "/api");
		assertThat(rejection).isInstanceOf(RateLimitRejection.Denied.class);
		assertThat(rejection.violated()).isEmpty();
		assertThat(rejection.retryAfterSeconds()).isZero();
		assertThat(rejection.path()).isEqualTo("/api");
	}

	@Test
	void aLimitThatRefusesSaysWhichAndForHowLong() {
		AppliedLimit refused = new AppliedLimit("api", new RateLimit(5, Duration.ofMinutes(1)),
				new RateLimitDecision(false, 5, 0, Duration.ofMillis(2500), Duration.ofSeconds(30)));
		RateLimitRejection rejection = new RateLimitRejection.Limited("POST", "/api/orders", List.of(refused), 3);
		assertThat(rejection.violated()).containsExactly(refused);
		assertThat(rejection.retryAfterSeconds()).isEqualTo(3);
		assertThat(rejection.method()).isEqualTo("POST");
	}

	@Test
	void aLimitedRejectionNamesAtLeastOneLimit() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RateLimitRejection.Limited("GET", "/", List.of(), 1))
			.withMessageContaining("violated");
	}

	@Test
	void anUnavailableDecisionAsksForASecond() {
		RateLimitRejection rejection = new RateLimitRejection.Unavailable("GET", "/api");
		assertThat(rejection.retryAfterSeconds()).isEqualTo(1);
		assertThat(rejection.violated()).isEmpty();
	}

}

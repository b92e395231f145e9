package dev.ratelimit.redis;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The seed's {@code isAllowed} methods name their own arguments when given bad ones.
 */
class SeedSignatureTests {

	private final StringRedisTemplate redis = RedisTestServer.shared().template();

	private final String id = UUID.randomUUID().toString();

	@Test
	void fixedWindowNamesItsArguments() {
		FixedWindowRateLimiter limiter = new FixedWindowRateLimiter(this.redis);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.isAllowed(null, 3, 60))
			.withMessage("clientId must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.isAllowed(this.id, 0, 60))
			.withMessage("limit must be at least 1, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.isAllowed(this.id, 3, 0))
			.withMessage("windowSeconds must be at least 1, but was 0");
	}

	@Test
	void slidingWindowNamesItsArguments() {
		SlidingWindowRateLimiter limiter = new SlidingWindowRateLimiter(this.redis);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.isAllowed(null, 3, 60))
			.withMessage("clientId must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.isAllowed(this.id, -1, 60))
			.withMessage("limit must be at least 1, but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.isAllowed(this.id, 3, -5))
			.withMessage("windowMs must be at least 1, but was -5");
	}

	@Test
	void rejectsABadKeyPrefix() {
		assertThatIllegalArgumentException().isThrownBy(() -> new FixedWindowRateLimiter(this.redis, "a b", null))
			.withMessageContaining("keyPrefix");
	}

}

package dev.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LocalRateLimiterTests {

	private final AtomicLong now = new AtomicLong();

	private final LocalRateLimiter limiter = new LocalRateLimiter(100, this.now::get);

	@Test
	void grantsTheLimitPerWindowAndReportsTheWait() {
		RateLimit limit = RateLimit.of(3, Duration.ofSeconds(10));
		for (long remaining = 2; remaining >= 0; remaining--) {
			assertThat(this.limiter.tryAcquire("a", limit).remaining()).isEqualTo(remaining);
		}
		this.now.addAndGet(Duration.ofSeconds(4).toNanos());
		RateLimitDecision refused = this.limiter.tryAcquire("a", limit);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(6));
		assertThat(this.limiter.tryAcquire("b", limit).allowed()).isTrue();
		this.now.addAndGet(Duration.ofSeconds(6).toNanos());
		assertThat(this.limiter.tryAcquire("a", limit).allowed()).isTrue();
	}

	@Test
	void chargesSeveralLimitsAllOrNothing() {
		List<RateLimit> limits = List.of(RateLimit.of(2, Duration.ofSeconds(1)), RateLimit.of(3, Duration.ofMinutes(1)));
		this.limiter.tryAcquire("a", limits, 1);
		this.limiter.tryAcquire("a", limits, 1);
		List<RateLimitDecision> refused = this.limiter.tryAcquire("a", limits, 1);
		assertThat(refused.get(0).allowed()).isFalse();
		assertThat(refused.get(1).remaining()).isEqualTo(1);
	}

	@Test
	void keepsNoMoreThanItsMaximumOfKeysUnderAFloodOfDistinctKeys() {
		RateLimit limit = RateLimit.of(1, Duration.ofHours(1));
		for (int i = 0; i < 100_000; i++) {
			this.limiter.tryAcquire("flood-" + i, limit);
		}
		assertThat(this.limiter.size()).isEqualTo(100);
		// the most recent keys are still held
		assertThat(this.limiter.tryAcquire("flood-99999", limit).allowed()).isFalse();
	}

}

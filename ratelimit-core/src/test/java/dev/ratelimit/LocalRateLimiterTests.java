package dev.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local failure mode's windows: decisions, and memory that is bounded and that a flood of made-up keys cannot
 * use to evict the window that refuses a client.
 */
class LocalRateLimiterTests {

	private final AtomicLong now = new AtomicLong();

	private final LocalRateLimiter limiter = new LocalRateLimiter(100, this.now::get);

	private final RateLimit limit = RateLimit.of(2, Duration.ofMinutes(1));

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

	@Test
	void keepsTheSpentWindowOfAClientThroughAFloodOfMadeUpKeys() {
		assertThat(this.limiter.tryAcquire("client", this.limit, 2).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("client", this.limit).allowed()).isFalse();
		for (int i = 0; i < 10_000; i++) {
			this.limiter.tryAcquire("junk-" + i, this.limit);
		}
		assertThat(this.limiter.size()).isEqualTo(100);
		assertThat(this.limiter.tryAcquire("client", this.limit).allowed()).as("still refused").isFalse();
	}

	@Test
	void dropsWindowsThatAreOverFirst() {
		assertThat(this.limiter.tryAcquire("client", this.limit, 2).allowed()).isTrue();
		for (int i = 0; i < 99; i++) {
			this.limiter.tryAcquire("old-" + i, RateLimit.of(5, Duration.ofSeconds(1)), 5);
		}
		this.now.addAndGet(Duration.ofSeconds(2).toNanos());
		// every old window is spent, but over: they go before the client's
		for (int i = 0; i < 99; i++) {
			this.limiter.tryAcquire("new-" + i, this.limit, 2);
		}
		assertThat(this.limiter.tryAcquire("client", this.limit).allowed()).isFalse();
	}

	@Test
	void dropsTheLeastRecentlyUsedWhenEveryWindowIsSpent() {
		for (int i = 0; i < 100; i++) {
			this.limiter.tryAcquire("spent-" + i, this.limit, 2);
		}
		this.limiter.tryAcquire("newcomer", this.limit, 2);
		assertThat(this.limiter.size()).isEqualTo(100);
		// spent-0, the least recently used, made room
		assertThat(this.limiter.tryAcquire("spent-0", this.limit).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("spent-99", this.limit).allowed()).isFalse();
	}

}

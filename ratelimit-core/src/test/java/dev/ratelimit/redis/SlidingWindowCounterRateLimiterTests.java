package dev.ratelimit.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class SlidingWindowCounterRateLimiterTests {

	private static final Duration WINDOW = Duration.ofSeconds(10);

	private static final RateLimit TEN_PER_TEN_SECONDS = RateLimit.of(10, WINDOW);

	private final StringRedisTemplate redis = RedisTestServer.shared().template();

	// windows are aligned to the epoch: this instant starts one
	private final MutableClock clock = MutableClock.at("2026-03-03T03:03:00Z");

	private final SlidingWindowCounterRateLimiter limiter = new SlidingWindowCounterRateLimiter(this.redis, "rate",
			this.clock);

	private final String key = "counter-" + UUID.randomUUID();

	@Test
	void refusesTheBoundaryBurstThatAFixedWindowWouldGrant() {
		this.clock.advance(Duration.ofMillis(9_990));
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.tryAcquire(this.key, TEN_PER_TEN_SECONDS).allowed()).isTrue();
		}
		this.clock.advance(Duration.ofMillis(20));
		RateLimitDecision refused = this.limiter.tryAcquire(this.key, TEN_PER_TEN_SECONDS);
		assertThat(refused.allowed()).isFalse();
		// the previous window's 10 weigh 10 × (10 s - 10 ms) / 10 s = 9.99; one permit fits at 9 and below,
		// when 1 s of the current window has run
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(990));
	}

	@Test
	void weighsThePreviousWindowByTheShareStillInTheSlidingWindow() {
		for (int i = 0; i < 8; i++) {
			this.limiter.tryAcquire(this.key, TEN_PER_TEN_SECONDS);
		}
		// 2.5 s into the next window: 8 × 0.75 = 6 still count, so 4 fit
		this.clock.advance(Duration.ofMillis(12_500));
		RateLimitDecision decision = this.limiter.tryAcquire(this.key, TEN_PER_TEN_SECONDS, 4);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isZero();
		assertThat(this.limiter.tryAcquire(this.key, TEN_PER_TEN_SECONDS).allowed()).isFalse();
		// both windows counted: back to full when the current window has become previous and run out
		assertThat(decision.resetAfter()).isEqualTo(Duration.ofMillis(17_500));
	}

	@Test
	void neverAdmitsMoreThanItsKnownBoundInAnyWindow() {
		// the estimate holds prev × (W - e) / W + cur ≤ L, so a sliding window ending e into a fixed window
		// holds at most L + prev × e / W admissions (prev: admissions of the previous fixed window)
		Random random = new Random(42);
		List<Long> admitted = new ArrayList<>();
		long start = micros(this.clock.instant());
		long now = start;
		for (int i = 0; i < 3_000; i++) {
			// bursts and lulls: many arrivals close together, then gaps of up to a second
			long gap = (random.nextInt(4) == 0) ? random.nextInt(1_000_000) : random.nextInt(5_000);
			this.clock.advance(Duration.ofNanos(gap * 1000));
			now += gap;
			if (this.limiter.tryAcquire(this.key, TEN_PER_TEN_SECONDS).allowed()) {
				admitted.add(now);
			}
		}
		long window = WINDOW.toNanos() / 1000;
		int worstExcess = 0;
		for (long t : admitted) {
			long windowStart = Math.floorDiv(t, window) * window;
			long elapsed = t - windowStart;
			long inSlidingWindow = admitted.stream().filter((a) -> a > t - window && a <= t).count();
			long previous = admitted.stream().filter((a) -> a >= windowStart - window && a < windowStart).count();
			assertThat(inSlidingWindow * window).as("admissions in the window ending at %d", t)
				.isLessThanOrEqualTo(10 * window + previous * elapsed);
			worstExcess = (int) Math.max(worstExcess, inSlidingWindow - 10);
		}
		assertThat(admitted).hasSizeGreaterThan(100);
		System.out.printf("sliding-window-counter: %d admitted of 3000, at most %d over the limit in a window%n",
				admitted.size(), worstExcess);
	}

	private static long micros(Instant instant) {
		return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
	}

}

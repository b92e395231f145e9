package dev.ratelimit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.ratelimit.CircuitBreaker.State;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class CircuitBreakerTests {

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final CircuitBreaker breaker = new CircuitBreaker("Redis", 3, Duration.ofSeconds(2), this.now::get);

	private final RuntimeException failure = new IllegalStateException("down");

	@Test
	void opensAfterTheThresholdOfFailuresInARow() {
		this.breaker.onFailure(this.failure);
		this.breaker.onFailure(this.failure);
		this.breaker.onSuccess();
		this.breaker.onFailure(this.failure);
		this.breaker.onFailure(this.failure);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
		this.breaker.onFailure(this.failure);
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.breaker.tryAcquirePermission()).isFalse();
	}

	@Test
	void letsOneProbeThroughOnceTheOpenPeriodIsOverAndClosesWhenItSucceeds() {
		open();
		this.now.addAndGet(Duration.ofMillis(1_999).toNanos());
		assertThat(this.breaker.tryAcquirePermission()).isFalse();
		this.now.addAndGet(Duration.ofMillis(1).toNanos());
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
		// only one probe at a time
		assertThat(this.breaker.tryAcquirePermission()).isFalse();
		this.breaker.onSuccess();
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
	}

	@Test
	void reopensForAnotherPeriodWhenTheProbeFails() {
		open();
		this.now.addAndGet(Duration.ofSeconds(2).toNanos());
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
		this.breaker.onFailure(this.failure);
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		this.now.addAndGet(Duration.ofMillis(1_999).toNanos());
		assertThat(this.breaker.tryAcquirePermission()).isFalse();
		this.now.addAndGet(Duration.ofMillis(1).toNanos());
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
	}

	@Test
	void letsAnotherProbeThroughWhenOneNeverReportsBack() {
		open();
		this.now.addAndGet(Duration.ofSeconds(2).toNanos());
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
		// that probe is lost: no success, no failure
		this.now.addAndGet(Duration.ofMillis(1_999).toNanos());
		assertThat(this.breaker.tryAcquirePermission()).isFalse();
		this.now.addAndGet(Duration.ofMillis(1).toNanos());
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
		this.breaker.onSuccess();
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
	}

	@Test
	void refusesBadSettings() {
		assertThatIllegalArgumentException().isThrownBy(() -> new CircuitBreaker("x", 0, Duration.ofSeconds(1)))
			.withMessageContaining("failureThreshold must be at least 1");
		assertThatIllegalArgumentException().isThrownBy(() -> new CircuitBreaker("x", 1, Duration.ZERO))
			.withMessageContaining("openDuration must be positive");
	}

	private void open() {
		for (int i = 0; i < 3; i++) {
			this.breaker.onFailure(this.failure);
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

}

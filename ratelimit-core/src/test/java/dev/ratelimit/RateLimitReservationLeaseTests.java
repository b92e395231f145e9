package dev.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reservation's lease, on a monotonic clock the test moves, against a real Redis: settled within it, the actual cost
 * counts; not settled within it, the estimate stands and a late settlement changes nothing.
 */
class RateLimitReservationLeaseTests {

	private static final LettuceConnectionFactory factory = RedisTestServer.shared().newConnectionFactory();

	private static final LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofSeconds(10));

	static {
		runner.start();
	}

	private static final List<RateLimit> HUNDRED_AN_HOUR = List.of(RateLimit.of(100, Duration.ofHours(1)));

	private final AtomicLong nanos = new AtomicLong();

	private final RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner)
		.keyPrefix("lease-" + UUID.randomUUID().toString().substring(0, 8))
		.build();

	@AfterAll
	static void close() {
		runner.close();
		factory.destroy();
	}

	private RateLimitReservation reserve(String key, long estimate, Duration lease) {
		return new RateLimitReservation(this.limiter, key, HUNDRED_AN_HOUR, estimate, lease,
				this.limiter.tryAcquire(key, HUNDRED_AN_HOUR, estimate), this.nanos::get);
	}

	private long remaining(String key) {
		return this.limiter.inspect(key, HUNDRED_AN_HOUR).get(0).remaining();
	}

	@Test
	void aReservationNotSettledWithinItsLeaseKeepsItsEstimate() {
		RateLimitReservation reservation = reserve("late", 30, Duration.ofMinutes(5));
		this.nanos.addAndGet(Duration.ofMinutes(5).plusNanos(1).toNanos());
		assertThat(reservation.settle(0)).isFalse();
		assertThat(reservation.settled()).isFalse();
		assertThat(remaining("late")).isEqualTo(70);
	}

	@Test
	void aReservationSettledAtTheEndOfItsLeaseCounts() {
		RateLimitReservation reservation = reserve("in-time", 30, Duration.ofMinutes(5));
		this.nanos.addAndGet(Duration.ofMinutes(5).toNanos());
		assertThat(reservation.settle(10)).isTrue();
		assertThat(remaining("in-time")).isEqualTo(90);
	}

}

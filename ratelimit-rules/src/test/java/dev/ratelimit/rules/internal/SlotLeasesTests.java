package dev.ratelimit.rules.internal;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The leases of requests in flight on a real Redis, on a clock the test moves: a slot held longer than its lease is
 * kept by its renewals; an instance that stops renewing (it crashed) gives its slots back when their leases end;
 * a slot given back is no longer renewed; a slot whose lease ended while Redis was paused is taken back by its
 * renewal, so that no more requests run than the limit.
 */
class SlotLeasesTests {

	private static final LettuceConnectionFactory factory = RedisTestServer.shared().newConnectionFactory();

	private static final LettuceScriptRunner runner = new LettuceScriptRunner(factory, Duration.ofSeconds(10));

	static {
		runner.start();
	}

	private final MutableClock clock = MutableClock.at("2026-12-06T12:00:00Z");

	private final AtomicLong nanos = new AtomicLong();

	private final RedisRateLimiter limiter = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner)
		.keyPrefix("leases-" + UUID.randomUUID().toString().substring(0, 8))
		.clock(this.clock)
		.build();

	@AfterAll
	static void close() {
		runner.close();
		factory.destroy();
	}

	private void advance(Duration duration) {
		this.clock.advance(duration);
		this.nanos.addAndGet(duration.toNanos());
	}

	@Test
	void aLongRequestKeepsItsSlotAndACrashedInstanceGivesItsSlotsBack() {
		Duration lease = Duration.ofSeconds(10);
		SlotLeases running = new SlotLeases(new EnforcerLogs(FailureMode.FAIL_OPEN), this.nanos::get);
		SlotLeases crashing = new SlotLeases(new EnforcerLogs(FailureMode.FAIL_OPEN), this.nanos::get);
		try {
			RateLimitSlot longRequest = this.limiter.tryAcquireSlot("report", 2, lease);
			RateLimitSlot lost = this.limiter.tryAcquireSlot("report", 2, lease);
			running.hold(longRequest);
			crashing.hold(lost);
			assertThat(running.size()).isEqualTo(1);
			for (int i = 0; i < 6; i++) {
				advance(Duration.ofSeconds(5));
				// the running instance renews every half lease; the crashed one never again
				running.renewDue().join();
			}
			// 30 s later: the long request still holds its slot, the crashed instance's came back
			RateLimitSlot taken = this.limiter.tryAcquireSlot("report", 2, lease);
			assertThat(taken.acquired()).isTrue();
			assertThat(this.limiter.tryAcquireSlot("report", 2, lease).acquired()).isFalse();
			running.release(longRequest).join();
			assertThat(running.size()).isZero();
			assertThat(this.limiter.tryAcquireSlot("report", 2, lease).acquired()).isTrue();
			// a slot given back is not renewed: its release stands
			advance(Duration.ofSeconds(6));
			running.renewDue().join();
			assertThat(longRequest.released()).isTrue();
		}
		finally {
			running.close();
			crashing.close();
		}
	}

	@Test
	void slotsWhoseLeasesEndedWhileRedisDidNotAnswerAreTakenBackAndKeptRenewed() {
		Duration lease = Duration.ofSeconds(2);
		SlotLeases leases = new SlotLeases(new EnforcerLogs(FailureMode.FAIL_OPEN), this.nanos::get);
		try {
			RateLimitSlot first = this.limiter.tryAcquireSlot("paused", 2, lease);
			RateLimitSlot second = this.limiter.tryAcquireSlot("paused", 2, lease);
			leases.hold(first);
			leases.hold(second);
			// Redis answered nothing for 4 s, past the leases, while both requests ran
			advance(Duration.ofSeconds(4));
			leases.renewDue().join();
			// both taken back: held, renewed, and no third request starts
			assertThat(leases.size()).isEqualTo(2);
			assertThat(this.limiter.tryAcquireSlot("paused", 2, lease).acquired()).isFalse();
			advance(Duration.ofSeconds(1));
			leases.renewDue().join();
			advance(Duration.ofSeconds(1));
			leases.renewDue().join();
			advance(Duration.ofSeconds(1));
			assertThat(this.limiter.tryAcquireSlot("paused", 2, lease).acquired()).isFalse();
			leases.release(first).join();
			assertThat(leases.size()).isEqualTo(1);
			assertThat(this.limiter.tryAcquireSlot("paused", 2, lease).acquired()).isTrue();
		}
		finally {
			leases.close();
		}
	}

	@Test
	void aRedisPauseLongerThanTheLeaseLetsNoMoreRequestsRunThanTheLimit() {
		// on the Redis server's clock, which a pause moves on while no command runs
		RedisRateLimiter serverClock = RedisRateLimiter.builder(Algorithm.FIXED_WINDOW, runner)
			.keyPrefix("leases-" + UUID.randomUUID().toString().substring(0, 8))
			.build();
		Duration lease = Duration.ofSeconds(1);
		SlotLeases leases = new SlotLeases(new EnforcerLogs(FailureMode.FAIL_CLOSED), this.nanos::get);
		RedisClient admin = RedisClient.create(RedisTestServer.shared().url());
		try (StatefulRedisConnection<String, String> connection = admin.connect()) {
			RateLimitSlot first = serverClock.tryAcquireSlot("paused", 2, lease);
			RateLimitSlot second = serverClock.tryAcquireSlot("paused", 2, lease);
			assertThat(first.acquired()).isTrue();
			assertThat(second.acquired()).isTrue();
			leases.hold(first);
			leases.hold(second);
			// Redis answers nothing for 2 s, twice the lease, while both requests run; their renewals wait for it
			connection.sync().clientPause(2000);
			advance(Duration.ofMillis(600));
			leases.renewDue().join();
			// answered once the pause ended, past both leases: both slots taken back
			assertThat(leases.size()).isEqualTo(2);
			assertThat(serverClock.tryAcquireSlot("paused", 2, lease).acquired()).isFalse();
			leases.release(first).join();
			RateLimitSlot third = serverClock.tryAcquireSlot("paused", 2, lease);
			assertThat(third.acquired()).isTrue();
			third.close();
			leases.release(second).join();
		}
		finally {
			leases.close();
			admin.shutdown();
		}
	}

}

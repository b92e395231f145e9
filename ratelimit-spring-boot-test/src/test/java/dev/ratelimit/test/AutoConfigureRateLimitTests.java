package dev.ratelimit.test;

import java.time.Duration;
import java.util.UUID;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.testsupport.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @AutoConfigureRateLimit(clock = true)} on an application whose own configuration names a Redis that does
 * not exist: it runs on the test's Redis, its limiters on the clock the test moves, and every test (a nested one too)
 * starts with every budget full, ahead of its own set-up.
 */
@SpringBootTest(classes = AutoConfigureRateLimitTests.Application.class,
		properties = { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1" })
@AutoConfigureRateLimit(clock = true)
class AutoConfigureRateLimitTests {

	private static final RateLimit ONE_PER_MINUTE = RateLimit.of(1, Duration.ofMinutes(1));

	private static final String SHARED_KEY = "shared";

	@Autowired
	private Environment environment;

	@Autowired
	private ApplicationContext context;

	@Autowired
	private RateLimitTestClock clock;

	@Autowired
	private FixedWindowRateLimiter fixedWindow;

	@Autowired
	private GcraRateLimiter gcra;

	private final String key = UUID.randomUUID().toString();

	@BeforeEach
	void takeTheOnlyPermitOfAKeyEveryTestShares() {
		assertThat(this.fixedWindow.tryAcquire(SHARED_KEY, ONE_PER_MINUTE).allowed())
			.as("the shared key's budget, full again before each test").isTrue();
	}

	@Test
	void resetsEveryBudgetBeforeTheTestsOwnSetUp() {
		assertThat(this.fixedWindow.tryAcquire(SHARED_KEY, ONE_PER_MINUTE).allowed()).isFalse();
	}

	@Test
	void pointsTheApplicationAtTheRedisOfTheTests() {
		assertThat(this.environment.getProperty("spring.data.redis.url")).isEqualTo(RedisTestServer.shared().url());
	}

	@Test
	void replacesTheLimiterOfEveryAlgorithmWithOneOnTheTestClock() {
		assertThat(this.context.getBeansOfType(RateLimiter.class)).hasSize(5)
			.allSatisfy((name, limiter) -> assertThat(name).startsWith("rateLimitTest"));
	}

	@Test
	void endsAWindowWhenTheTestMovesTheClock() {
		assertThat(this.fixedWindow.tryAcquire(this.key, ONE_PER_MINUTE).allowed()).isTrue();
		assertThat(this.fixedWindow.tryAcquire(this.key, ONE_PER_MINUTE).allowed()).isFalse();
		this.clock.advance(Duration.ofSeconds(59));
		assertThat(this.fixedWindow.tryAcquire(this.key, ONE_PER_MINUTE).allowed()).isFalse();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(this.fixedWindow.tryAcquire(this.key, ONE_PER_MINUTE).allowed()).isTrue();
	}

	@Test
	void emitsAnIntervalWhenTheTestMovesTheClock() {
		assertThat(this.gcra.tryAcquire(this.key, ONE_PER_MINUTE).allowed()).isTrue();
		assertThat(this.gcra.tryAcquire(this.key, ONE_PER_MINUTE).retryAfter()).isEqualTo(Duration.ofMinutes(1));
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(this.gcra.tryAcquire(this.key, ONE_PER_MINUTE).retryAfter()).isEqualTo(Duration.ofSeconds(30));
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(this.gcra.tryAcquire(this.key, ONE_PER_MINUTE).allowed()).isTrue();
	}

	@Nested
	class InANestedClass {

		@Test
		void resetsEveryBudgetBeforeEachTestToo() {
			assertThat(AutoConfigureRateLimitTests.this.fixedWindow.tryAcquire(SHARED_KEY, ONE_PER_MINUTE).allowed())
				.isFalse();
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}

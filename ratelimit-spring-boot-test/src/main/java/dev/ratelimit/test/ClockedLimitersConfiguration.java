package dev.ratelimit.test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.redis.SlidingWindowCounterRateLimiter;
import dev.ratelimit.redis.SlidingWindowRateLimiter;
import dev.ratelimit.redis.TokenBucketRateLimiter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The beans of {@code @AutoConfigureRateLimit(clock = true)}: the test clock, and a limiter of each algorithm that
 * reads it, which the starter's limiters back off for (and which decide the rules, as any limiter bean of the
 * application does). Each passes the clock's time to its script instead of letting Redis read its own {@code TIME};
 * they have no local denial cache, whose memory of refusals runs on the JVM's own clock and would outlast a moved
 * test clock.
 */
@Configuration(proxyBeanMethods = false)
class ClockedLimitersConfiguration {

	@Bean
	RateLimitTestClock rateLimitTestClock() {
		return new RateLimitTestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
	}

	@Bean
	FixedWindowRateLimiter rateLimitTestFixedWindowRateLimiter(RedisScriptRunner runner, RateLimitProperties properties,
			ObjectProvider<CircuitBreaker> circuitBreaker, RateLimitTestClock clock) {
		return new FixedWindowRateLimiter(clocked(Algorithm.FIXED_WINDOW, runner, properties, circuitBreaker, clock));
	}

	@Bean
	SlidingWindowRateLimiter rateLimitTestSlidingWindowRateLimiter(RedisScriptRunner runner,
			RateLimitProperties properties, ObjectProvider<CircuitBreaker> circuitBreaker, RateLimitTestClock clock) {
		return new SlidingWindowRateLimiter(
				clocked(Algorithm.SLIDING_WINDOW_LOG, runner, properties, circuitBreaker, clock));
	}

	@Bean
	SlidingWindowCounterRateLimiter rateLimitTestSlidingWindowCounterRateLimiter(RedisScriptRunner runner,
			RateLimitProperties properties, ObjectProvider<CircuitBreaker> circuitBreaker, RateLimitTestClock clock) {
		return new SlidingWindowCounterRateLimiter(
				clocked(Algorithm.SLIDING_WINDOW_COUNTER, runner, properties, circuitBreaker, clock));
	}

	@Bean
	TokenBucketRateLimiter rateLimitTestTokenBucketRateLimiter(RedisScriptRunner runner, RateLimitProperties properties,
			ObjectProvider<CircuitBreaker> circuitBreaker, RateLimitTestClock clock) {
		return new TokenBucketRateLimiter(clocked(Algorithm.TOKEN_BUCKET, runner, properties, circuitBreaker, clock));
	}

	@Bean
	GcraRateLimiter rateLimitTestGcraRateLimiter(RedisScriptRunner runner, RateLimitProperties properties,
			ObjectProvider<CircuitBreaker> circuitBreaker, RateLimitTestClock clock) {
		return new GcraRateLimiter(clocked(Algorithm.GCRA, runner, properties, circuitBreaker, clock));
	}

	private static RedisRateLimiter clocked(Algorithm algorithm, RedisScriptRunner runner,
			RateLimitProperties properties, ObjectProvider<CircuitBreaker> circuitBreaker, RateLimitTestClock clock) {
		return RedisRateLimiter.builder(algorithm, runner)
			.keyPrefix(properties.getKeyPrefix())
			.circuitBreaker(circuitBreaker.getIfUnique())
			.clock(clock)
			.build();
	}

}

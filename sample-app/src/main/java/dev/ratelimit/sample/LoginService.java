package dev.ratelimit.sample;

import java.time.Duration;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.redis.SlidingWindowRateLimiter;

import org.springframework.stereotype.Service;

/**
 * Limits login attempts per user name with a limiter bean called directly: three attempts in any five
 * minutes, whatever address they come from.
 */
@Service
class LoginService {

	static final RateLimit ATTEMPTS = RateLimit.of(3, Duration.ofMinutes(5));

	private final SlidingWindowRateLimiter limiter;

	LoginService(SlidingWindowRateLimiter limiter) {
		this.limiter = limiter;
	}

	RateLimitDecision attempt(String username) {
		return this.limiter.tryAcquire("login:" + username, ATTEMPTS);
	}

}

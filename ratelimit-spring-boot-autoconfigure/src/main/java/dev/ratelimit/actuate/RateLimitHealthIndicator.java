package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.FailureMode;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.redis.LettuceScriptRunner;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code ratelimit} health: {@code UP} when Redis answers on the decisions' connection and holds every script,
 * {@code DOWN} with the reason otherwise; its details tell the failure mode in force, the circuit breaker's state
 * and, in the {@code local} failure mode, how many key-and-limit windows are decided in memory.
 */
final class RateLimitHealthIndicator implements HealthIndicator {

	private final LettuceScriptRunner runner;

	private final CircuitBreaker circuitBreaker;

	private final FailureMode failureMode;

	private final @Nullable LocalRateLimiter local;

	private final Duration timeout;

	RateLimitHealthIndicator(LettuceScriptRunner runner, CircuitBreaker circuitBreaker, FailureMode failureMode,
			@Nullable LocalRateLimiter local, Duration timeout) {
		this.runner = runner;
		this.circuitBreaker = circuitBreaker;
		this.failureMode = failureMode;
		this.local = local;
		this.timeout = timeout;
	}

	@Override
	public Health health() {
		String reason = probe();
		Health.Builder health = (reason != null) ? Health.down().withDetail("reason", reason) : Health.up();
		health.withDetail("failureMode", this.failureMode.id())
			.withDetail("circuitBreaker", this.circuitBreaker.state().id());
		if (this.local != null) {
			health.withDetail("localKeys", this.local.size());
		}
		return health.build();
	}

	/** Why Redis is not ready for decisions, or {@code null} when it is. */
	private @Nullable String probe() {
		try {
			// the probe times itself out; the wait here only bounds a runner that would not
			this.runner.probe(this.timeout).get(this.timeout.toMillis() * 2 + 100, TimeUnit.MILLISECONDS);
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted while asking Redis";
		}
		catch (ExecutionException | CompletionException | TimeoutException ex) {
			Throwable cause = (ex.getCause() != null && !(ex instanceof TimeoutException)) ? ex.getCause() : ex;
			if (cause instanceof TimeoutException) {
				return "Redis did not answer within " + RateLimit.label(this.timeout);
			}
			return String.valueOf(cause.getMessage());
		}
	}

}

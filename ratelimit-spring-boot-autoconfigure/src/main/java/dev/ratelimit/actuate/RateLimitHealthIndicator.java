package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.FailureMode;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.util.Assert;

/**
 * The {@code ratelimit} health: {@code UP} when Redis answers on the decisions' connection and holds every script,
 * {@code DOWN} with the reason otherwise; its details tell the failure mode in force, the circuit breaker's state
 * and, in the {@code local} failure mode, how many key-and-limit windows are decided in memory.
 *
 * @since 0.1.0
 */
public final class RateLimitHealthIndicator implements HealthIndicator {

	private final Function<Duration, ? extends CompletionStage<?>> probe;

	private final CircuitBreaker circuitBreaker;

	private final FailureMode failureMode;

	private final @Nullable LocalRateLimiter local;

	private final Duration timeout;

	private RateLimitHealthIndicator(Builder builder) {
		this.probe = builder.probe;
		this.circuitBreaker = builder.circuitBreaker;
		this.failureMode = builder.failureMode;
		this.local = builder.local;
		this.timeout = builder.timeout;
	}

	/**
	 * Starts an indicator.
	 * @param probe asks Redis whether it is ready for decisions, waiting up to the given time, such as
	 * {@code LettuceScriptRunner::probe}; its stage completes exceptionally, with the reason, when Redis is not
	 * @param circuitBreaker the breaker guarding Redis, whose state the details show
	 * @return the builder
	 */
	public static Builder builder(Function<Duration, ? extends CompletionStage<?>> probe,
			CircuitBreaker circuitBreaker) {
		return new Builder(probe, circuitBreaker);
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
			// the probe times itself out; the wait here only bounds one that would not
			this.probe.apply(this.timeout)
				.toCompletableFuture()
				.get(this.timeout.toMillis() * 2 + 100, TimeUnit.MILLISECONDS);
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

	/**
	 * Builds a {@link RateLimitHealthIndicator}.
	 *
	 * @since 0.1.0
	 */
	public static final class Builder {

		/** The least a probe may wait: a health check is no decision, and need not fit in a decision's timeout. */
		private static final Duration LEAST_TIMEOUT = Duration.ofSeconds(1);

		private final Function<Duration, ? extends CompletionStage<?>> probe;

		private final CircuitBreaker circuitBreaker;

		private FailureMode failureMode = FailureMode.FAIL_OPEN;

		private @Nullable LocalRateLimiter local;

		private Duration timeout = LEAST_TIMEOUT;

		private Builder(Function<Duration, ? extends CompletionStage<?>> probe, CircuitBreaker circuitBreaker) {
			Assert.notNull(probe, "probe must not be null");
			Assert.notNull(circuitBreaker, "circuitBreaker must not be null");
			this.probe = probe;
			this.circuitBreaker = circuitBreaker;
		}

		/**
		 * Sets the failure mode in force, which the details show; {@code fail-open} by default.
		 * @param failureMode the failure mode
		 * @return this builder
		 */
		public Builder failureMode(FailureMode failureMode) {
			Assert.notNull(failureMode, "failureMode must not be null");
			this.failureMode = failureMode;
			return this;
		}

		/**
		 * Sets the memory the {@code local} failure mode decides in, whose keys the details count; none by default.
		 * @param local the in-memory limiter, or {@code null}
		 * @return this builder
		 */
		public Builder local(@Nullable LocalRateLimiter local) {
			this.local = local;
			return this;
		}

		/**
		 * Sets how long the probe waits for Redis: at least a second, whatever is set.
		 * @param timeout the timeout, such as {@code ratelimit.timeout}
		 * @return this builder
		 */
		public Builder timeout(Duration timeout) {
			Assert.isTrue(timeout != null && !timeout.isNegative() && !timeout.isZero(),
					() -> "timeout must be positive, but was " + timeout);
			this.timeout = (timeout.compareTo(LEAST_TIMEOUT) > 0) ? timeout : LEAST_TIMEOUT;
			return this;
		}

		/**
		 * Builds the indicator.
		 * @return the indicator
		 */
		public RateLimitHealthIndicator build() {
			return new RateLimitHealthIndicator(this);
		}

	}

}

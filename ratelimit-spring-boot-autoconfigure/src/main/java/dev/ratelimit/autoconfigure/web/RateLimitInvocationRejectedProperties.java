package dev.ratelimit.autoconfigure.web;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.ClassUtils;

/**
 * How a web request is answered when its handler called a method that Spring Framework's own
 * {@code @ConcurrencyLimit(policy = REJECT)} refused: the {@code InvocationRejectedException} it throws is answered
 * as the rate limiter answers its refusals (the rejection handler's problem detail), instead of Spring's 500.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("ratelimit.invocation-rejected")
public class RateLimitInvocationRejectedProperties {

	/** Spring Framework's exception, since 7.0.3: absent from earlier versions, whose refusals throw nothing. */
	private static final @Nullable Class<?> INVOCATION_REJECTED = ClassUtils.isPresent(
			"org.springframework.resilience.InvocationRejectedException", null)
					? ClassUtils.resolveClassName("org.springframework.resilience.InvocationRejectedException", null)
					: null;

	/**
	 * Status of the answer: 503 (Service Unavailable: the service is busy) or 429 (Too Many Requests: the client
	 * sends too many).
	 */
	private int status = 503;

	/**
	 * Retry-After sent with the answer, in whole seconds (rounded up). None when unset: the exception does not tell when
	 * a call would be admitted.
	 */
	private @Nullable Duration retryAfter;

	public int getStatus() {
		return this.status;
	}

	public void setStatus(int status) {
		this.status = status;
	}

	public @Nullable Duration getRetryAfter() {
		return this.retryAfter;
	}

	public void setRetryAfter(@Nullable Duration retryAfter) {
		this.retryAfter = retryAfter;
	}

	/**
	 * Returns whether a handler's exception is Spring Framework's {@code InvocationRejectedException}.
	 * @param ex what the handler threw
	 * @return {@code true} for a call that {@code @ConcurrencyLimit} refused
	 */
	public static boolean rejected(Throwable ex) {
		return INVOCATION_REJECTED != null && INVOCATION_REJECTED.isInstance(ex);
	}

	/**
	 * Returns the status, checked.
	 * @return 503 or 429
	 * @throws InvalidConfigurationPropertyValueException for any other status
	 */
	public int answerStatus() {
		if (this.status != 503 && this.status != 429) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.invocation-rejected.status", this.status,
					"Use 503 (the default: the service is busy) or 429 (the client sends too many requests).");
		}
		return this.status;
	}

	/**
	 * Returns the {@code Retry-After} to send, checked.
	 * @return whole seconds, rounded up; zero when none is configured
	 * @throws InvalidConfigurationPropertyValueException for a negative or zero duration
	 */
	public long retryAfterSeconds() {
		Duration retryAfter = this.retryAfter;
		if (retryAfter == null) {
			return 0;
		}
		if (retryAfter.isNegative() || retryAfter.isZero()) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.invocation-rejected.retry-after",
					retryAfter, "Use a positive duration such as 1s, or leave it unset to send no Retry-After.");
		}
		long seconds = retryAfter.getSeconds();
		return (retryAfter.getNano() > 0) ? seconds + 1 : seconds;
	}

}

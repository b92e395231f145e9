package dev.ratelimit.autoconfigure.method;

import java.time.Duration;

import dev.ratelimit.method.MethodRateLimitInterceptor;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * How Spring Framework's {@code @Retryable} retries a {@link dev.ratelimit.RateLimited} method that its limits
 * refused: the next attempt is decided at the refusal's retry time, up to a bound.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("ratelimit.retry")
public class RateLimitRetryProperties {

	/**
	 * Longest retry time the next attempt of a refused call waits for; a longer one is not waited for, and
	 * RateLimitRetryPredicate does not retry it. Zero retries without waiting.
	 */
	private Duration maxWait = MethodRateLimitInterceptor.DEFAULT_RETRY_MAX_WAIT;

	public Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

	/**
	 * Returns the bound, checked.
	 * @return the longest retry time waited for, zero or more
	 * @throws InvalidConfigurationPropertyValueException for a negative duration
	 */
	public Duration checkedMaxWait() {
		if (this.maxWait.isNegative()) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.retry.max-wait", this.maxWait,
					"Use a duration of zero or more such as 5s (zero retries a refused call without waiting for its "
							+ "retry time).");
		}
		return this.maxWait;
	}

}

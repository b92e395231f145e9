package dev.ratelimit.autoconfigure.method;

import java.time.Duration;

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
	 * Longest retry time that Spring's @Retryable waits for before it retries a call the limits refused; a refusal
	 * with a longer one is retried without waiting, or not at all with RateLimitRetryPredicate.
	 */
	private Duration maxWait = Duration.ofSeconds(5);

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
					"Use a duration of zero or more such as 5s (zero waits for no retry time).");
		}
		return this.maxWait;
	}

}

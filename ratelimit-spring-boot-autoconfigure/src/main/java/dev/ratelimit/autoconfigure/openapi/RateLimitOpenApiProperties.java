package dev.ratelimit.autoconfigure.openapi;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The OpenAPI document's part of the rate limiter's properties ({@code ratelimit.openapi.*}).
 *
 * @since 0.1.0
 */
@ConfigurationProperties("ratelimit.openapi")
public class RateLimitOpenApiProperties {

	/**
	 * Whether springdoc's OpenAPI document tells, for each operation a rule or a @RateLimited handler limits, its 429
	 * (and 503 when fail-closed) response, its rate-limit headers and its policies.
	 */
	private boolean enabled = true;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

}

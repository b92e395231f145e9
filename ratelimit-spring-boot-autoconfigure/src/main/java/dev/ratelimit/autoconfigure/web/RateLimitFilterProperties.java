package dev.ratelimit.autoconfigure.web;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The filter that applies the rules from properties: the servlet filter, or the WebFlux web filter.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("ratelimit.filter")
public class RateLimitFilterProperties {

	/**
	 * The order of the rate-limit filter: after Spring Boot's character-encoding, forwarded-header,
	 * observation and request-context filters (-105 and earlier), before Spring Security's filter chain
	 * (-100).
	 */
	public static final int DEFAULT_ORDER = -101;

	/**
	 * Order of the servlet filter or WebFlux web filter: after Spring Boot's early filters, before Spring Security's (-100).
	 */
	private int order = DEFAULT_ORDER;

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

}

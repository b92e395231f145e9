package dev.ratelimit.redis;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimiterTimeoutException;

import org.springframework.dao.QueryTimeoutException;

/**
 * The runner's own timeout, and whose lateness it was.
 */
final class ScriptTimeoutException extends QueryTimeoutException {

	final RateLimiterTimeoutException.Culprit culprit;

	ScriptTimeoutException(String message, @Nullable Throwable cause, RateLimiterTimeoutException.Culprit culprit) {
		super(message, cause);
		this.culprit = culprit;
	}

}

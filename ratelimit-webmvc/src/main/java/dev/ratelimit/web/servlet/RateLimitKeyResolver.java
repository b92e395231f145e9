package dev.ratelimit.web.servlet;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Decides whose budget a request charges. Declare one as a bean and name it in a rule's key as
 * {@code bean:<beanName>}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RateLimitKeyResolver {

	/**
	 * Returns the key of the request's budget.
	 * @param request the request
	 * @return the key, or {@code null} (or blank) to charge the request under its client address
	 */
	@Nullable String resolveKey(HttpServletRequest request);

}

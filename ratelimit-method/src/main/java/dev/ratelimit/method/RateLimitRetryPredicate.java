package dev.ratelimit.method;

import java.lang.reflect.Method;
import java.time.Duration;

import dev.ratelimit.RateLimitExceededException;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.resilience.retry.MethodRetryPredicate;

/**
 * A predicate for Spring Framework's {@code @Retryable} on a {@link dev.ratelimit.RateLimited} method:
 * {@code @Retryable(predicate = RateLimitRetryPredicate.class)} retries a {@link RateLimitExceededException} only when
 * its retry time is at most the longest wait for a retry time ({@code ratelimit.retry.max-wait}, see
 * {@link MethodRateLimitInterceptor#setRetryMaxWait}), so that a refusal that would be refused again on every attempt
 * reaches the caller at once. Every other exception is retried, as without a predicate; the retry's
 * {@code includes} and {@code excludes} still apply.
 *
 * @since 0.1.0
 */
public class RateLimitRetryPredicate implements MethodRetryPredicate, BeanFactoryAware {

	private Duration maxWait = MethodRateLimitInterceptor.DEFAULT_RETRY_MAX_WAIT;

	/**
	 * Creates the predicate with the default bound; Spring creates it for each {@code @Retryable} method that names
	 * it, and gives it the bound of the application's {@link RateLimitedMethodPostProcessor}.
	 */
	public RateLimitRetryPredicate() {
	}

	/**
	 * Takes the longest wait for a retry time from the application's {@link RateLimitedMethodPostProcessor}, if it
	 * has one.
	 * @param beanFactory the bean factory that creates the predicate
	 */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		beanFactory.getBeanProvider(RateLimitedMethodPostProcessor.class)
			.ifUnique((postProcessor) -> this.maxWait = postProcessor.getRetryMaxWait());
	}

	/**
	 * Returns whether a failed attempt is retried: a refusal by the limits when its retry time is at most the bound,
	 * every other failure.
	 * @param method the method retried
	 * @param throwable what its attempt threw
	 * @return whether to retry
	 */
	@Override
	public boolean shouldRetry(Method method, Throwable throwable) {
		return !(throwable instanceof RateLimitExceededException exceeded)
				|| exceeded.getRetryAfter().compareTo(this.maxWait) <= 0;
	}

}

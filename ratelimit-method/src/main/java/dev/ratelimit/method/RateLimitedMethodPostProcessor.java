package dev.ratelimit.method;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimited;
import dev.ratelimit.rules.InvalidRateLimitRuleException;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies the Spring beans that have {@link RateLimited} methods (or a {@link RateLimited} class) so that every
 * call is decided by their limits, as {@code @Async} and {@code @Validated} beans are proxied; on a method that Spring
 * Framework's {@code @Retryable} retries too, inside the retry, so that each attempt is decided and charged. Web
 * controllers are
 * left to the web stacks, which decide their handlers before the arguments are read. Every limited method is checked
 * once the singletons are created, so that a bad annotation, SpEL expression or fallback stops the application.
 *
 * @since 0.1.0
 */
public class RateLimitedMethodPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	/** Spring Framework's retry interceptor ({@code @Retryable}, since 7.0), or {@code null} before 7.0. */
	private static final @Nullable Class<?> RETRY_INTERCEPTOR = ClassUtils.isPresent(
			"org.springframework.resilience.retry.AbstractRetryInterceptor",
			RateLimitedMethodPostProcessor.class.getClassLoader())
					? ClassUtils.resolveClassName("org.springframework.resilience.retry.AbstractRetryInterceptor",
							RateLimitedMethodPostProcessor.class.getClassLoader())
					: null;

	private final MethodRateLimitInterceptor interceptor;

	private final List<Class<?>> toCheck = new ArrayList<>();

	private boolean started;

	/**
	 * Creates the post-processor.
	 * @param interceptor decides the calls of limited methods
	 */
	public RateLimitedMethodPostProcessor(MethodRateLimitInterceptor interceptor) {
		this.interceptor = interceptor;
		this.advisor = new DefaultPointcutAdvisor(new LimitedMethods(), interceptor);
		// before @Transactional and the like: a refused call opens nothing
		setBeforeExistingAdvisors(true);
	}

	/**
	 * Returns the longest retry time that the next attempt of a refused call waits for, which
	 * {@link RateLimitRetryPredicate} reads.
	 * @return the bound of the interceptor the post-processor applies
	 * @see MethodRateLimitInterceptor#setRetryMaxWait
	 * @since 0.1.0
	 */
	public Duration getRetryMaxWait() {
		return this.interceptor.getRetryMaxWait();
	}

	/**
	 * Applies the limits, inside Spring Framework's {@code @Retryable} whichever post-processor ran first: every
	 * attempt is a call that the limits decide and charge, and a refusal is an exception the retry sees.
	 */
	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Object result = super.postProcessAfterInitialization(bean, beanName);
		if (RETRY_INTERCEPTOR != null && result instanceof Advised advised && !advised.isFrozen()) {
			insideRetries(advised, RETRY_INTERCEPTOR);
		}
		return result;
	}

	/** Moves the limits' advisor right after the last retry advisor when it is ahead of it (outside the retry). */
	private void insideRetries(Advised advised, Class<?> retryInterceptor) {
		Advisor ours = this.advisor;
		if (ours == null) {
			return;
		}
		Advisor[] advisors = advised.getAdvisors();
		int limits = -1;
		int lastRetry = -1;
		for (int i = 0; i < advisors.length; i++) {
			if (advisors[i] == ours) {
				limits = i;
			}
			else if (retryInterceptor.isInstance(advisors[i].getAdvice())) {
				lastRetry = i;
			}
		}
		if (limits >= 0 && lastRetry > limits) {
			advised.removeAdvisor(limits);
			// the retry's advisor moved up by one when ours was removed
			advised.addAdvisor(lastRetry, ours);
		}
	}

	@Override
	protected boolean isEligible(Class<?> targetClass) {
		boolean eligible = super.isEligible(targetClass);
		if (eligible) {
			Class<?> userClass = ClassUtils.getUserClass(targetClass);
			synchronized (this.toCheck) {
				if (this.started) {
					check(userClass);
				}
				else if (!this.toCheck.contains(userClass)) {
					this.toCheck.add(userClass);
				}
			}
		}
		return eligible;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<Class<?>> classes;
		synchronized (this.toCheck) {
			this.started = true;
			classes = List.copyOf(this.toCheck);
			this.toCheck.clear();
		}
		classes.forEach(this::check);
	}

	private void check(Class<?> targetClass) {
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (!LimitedMethods.limits(method, targetClass)) {
				continue;
			}
			int modifiers = method.getModifiers();
			if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers)) {
				// listed by the endpoint, and never applied: a proxy cannot stand in for such a method
				throw new InvalidRateLimitRuleException(targetClass.getSimpleName() + "." + method.getName()
						+ " (@RateLimited on " + targetClass.getName() + "." + method.getName() + ")", "method",
						Modifier.toString(modifiers), "a " + (Modifier.isPrivate(modifiers) ? "private" : "final")
								+ " method is called past the proxy that applies limits; make it public (or package-visible) "
								+ "and not final, and call it from another bean");
			}
			this.interceptor.check(method, targetClass);
		}
	}

	/**
	 * The methods a {@link RateLimited} annotation limits: those annotated, and the public ones an annotated class
	 * declares (as {@code @Transactional} on a class), but never {@code equals}, {@code hashCode} and
	 * {@code toString}, nor the handlers of web controllers.
	 */
	static final class LimitedMethods extends StaticMethodMatcherPointcut {

		LimitedMethods() {
			setClassFilter(new ClassFilter() {
				@Override
				public boolean matches(Class<?> type) {
					return !AnnotatedElementUtils.hasAnnotation(type, Controller.class);
				}
			});
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return limits(method, targetClass);
		}

		static boolean limits(Method method, Class<?> targetClass) {
			if (method.getDeclaringClass() == Object.class || Modifier.isStatic(method.getModifiers())
					|| ReflectionUtils.isEqualsMethod(method) || ReflectionUtils.isHashCodeMethod(method)
					|| ReflectionUtils.isToStringMethod(method)) {
				return false;
			}
			if (AnnotatedElementUtils.hasAnnotation(targetClass, Controller.class)) {
				return false;
			}
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			if (annotated(specific) || annotated(method)) {
				return true;
			}
			return Modifier.isPublic(method.getModifiers()) && annotated(specific.getDeclaringClass());
		}

		private static boolean annotated(java.lang.reflect.AnnotatedElement element) {
			return !AnnotatedElementUtils.findMergedRepeatableAnnotations(element, RateLimited.class).isEmpty();
		}

	}

}

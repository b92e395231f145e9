package dev.ratelimit.method;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimited;
import dev.ratelimit.rules.InvalidRateLimitRuleException;

import org.springframework.aop.ClassFilter;
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
 * call is decided by their limits, as {@code @Async} and {@code @Validated} beans are proxied. Web controllers are
 * left to the web stacks, which decide their handlers before the arguments are read. Every limited method is checked
 * once the singletons are created, so that a bad annotation, SpEL expression or fallback stops the application.
 *
 * @since 0.1.0
 */
public class RateLimitedMethodPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

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

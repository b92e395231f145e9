package dev.ratelimit.method;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.rules.InvalidRateLimitRuleException;

import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the fallback method a {@link dev.ratelimit.RateLimited} bean method names, as Resilience4j's
 * {@code fallbackMethod} does: a method of the same bean with the same parameters, optionally followed by the
 * {@link RateLimitExceededException} (or a supertype of it), that returns what the limited method returns.
 */
final class Fallbacks {

	private Fallbacks() {
	}

	/**
	 * Finds and checks a fallback method.
	 * @param method the limited method
	 * @param targetClass the bean's class
	 * @param name the fallback's name
	 * @param rule the rule that names it, for the error
	 * @return the fallback
	 * @throws InvalidRateLimitRuleException when the bean has no such method, or none of a fitting signature
	 */
	static Fallback find(Method method, Class<?> targetClass, String name, String rule) {
		// a suspend function's fallback is one too, its parameters compared without the continuation
		boolean suspending = KotlinCalls.isSuspending(method);
		Class<?>[] parameters = parameters(method, suspending);
		List<Method> named = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, named::add, (candidate) -> candidate.getName().equals(name)
				&& !candidate.isBridge() && !Modifier.isStatic(candidate.getModifiers())
				&& KotlinCalls.isSuspending(candidate) == suspending);
		// the one that takes the refusal first, whatever order reflection lists them in
		for (boolean withException : new boolean[] { true, false }) {
			for (Method candidate : named) {
				Class<?>[] types = parameters(candidate, suspending);
				boolean fits = withException
						? types.length == parameters.length + 1
								&& Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
								&& types[parameters.length].isAssignableFrom(RateLimitExceededException.class)
						: Arrays.equals(types, parameters);
				if (fits && returnsWhatTheMethodReturns(candidate, method)) {
					ReflectionUtils.makeAccessible(candidate);
					return new Fallback(candidate, withException, suspending);
				}
			}
		}
		String expected = name + "(" + String.join(", ", Arrays.stream(parameters).map(Class::getSimpleName).toList())
				+ ((parameters.length > 0) ? ", " : "") + "[RateLimitExceededException])";
		String reason = named.isEmpty() ? "the bean " + targetClass.getName() + " has no method of that name"
				: "no method of that name takes the limited method's parameters (optionally followed by the exception) "
						+ "and returns " + method.getReturnType().getSimpleName() + ": found " + String.join("; ",
								named.stream().map(Fallbacks::signature).sorted().toList());
		throw new InvalidRateLimitRuleException(rule, "fallbackMethod", name,
				reason + "; declare " + method.getReturnType().getSimpleName() + " " + expected + " on the bean");
	}

	private static Class<?>[] parameters(Method method, boolean suspending) {
		Class<?>[] types = method.getParameterTypes();
		return suspending ? Arrays.copyOf(types, types.length - 1) : types;
	}

	private static boolean returnsWhatTheMethodReturns(Method fallback, Method method) {
		// a suspend function's declared type, not the Object its JVM method returns
		Class<?> returned = new MethodParameter(method, -1).getParameterType();
		Class<?> fallbackReturns = new MethodParameter(fallback, -1).getParameterType();
		if (returned == void.class) {
			return fallbackReturns == void.class;
		}
		return ClassUtils.isAssignable(returned, fallbackReturns);
	}

	private static String signature(Method method) {
		return method.getReturnType().getSimpleName() + " " + method.getName() + "("
				+ String.join(", ", Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toList()) + ")";
	}

	/**
	 * A fallback method.
	 *
	 * @param method the method
	 * @param takesException whether its last parameter (before a suspend function's continuation) is the refusal
	 * @param suspending whether it is a Kotlin suspend function, called as a publisher
	 */
	record Fallback(Method method, boolean takesException, boolean suspending) {

		/**
		 * Calls the fallback instead of the limited method.
		 * @param target the bean
		 * @param arguments the limited method's arguments
		 * @param refusal why the call was refused
		 * @return what the fallback returns
		 * @throws Throwable what the fallback throws
		 */
		@Nullable Object call(Object target, @Nullable Object[] arguments, RateLimitExceededException refusal)
				throws Throwable {
			Object[] passed = arguments;
			if (this.suspending) {
				// the limited function's continuation is Spring's, which awaits the publisher this returns
				passed = Arrays.copyOf(arguments, arguments.length - 1 + (this.takesException ? 1 : 0));
				if (this.takesException) {
					passed[arguments.length - 1] = refusal;
				}
				return KotlinCalls.callSuspending(this.method, target, passed);
			}
			if (this.takesException) {
				passed = Arrays.copyOf(arguments, arguments.length + 1);
				passed[arguments.length] = refusal;
			}
			try {
				return this.method.invoke(target, passed);
			}
			catch (java.lang.reflect.InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

	}

}

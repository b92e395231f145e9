package dev.ratelimit.method;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Kotlin's coroutines as a limited method's calls: a {@code suspend} function is one call, which Spring's proxy runs
 * as a {@code Mono} (or, when it returns a {@code Flow}, a {@code Flux}) and awaits for its caller; a function
 * returning a {@code Flow} is one call per collection. Everything here needs {@code kotlinx-coroutines-reactor},
 * as Spring's own support for coroutines in proxies does.
 */
final class KotlinCalls {

	private static final ClassLoader LOADER = KotlinCalls.class.getClassLoader();

	/** Whether Spring can run coroutines as publishers: Kotlin and {@code kotlinx-coroutines-reactor}. */
	static final boolean COROUTINES = KotlinDetector.isKotlinPresent()
			&& ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", LOADER);

	private static final @Nullable Class<?> FLOW = ClassUtils.isPresent("kotlinx.coroutines.flow.Flow", LOADER)
			? ClassUtils.resolveClassName("kotlinx.coroutines.flow.Flow", LOADER) : null;

	private KotlinCalls() {
	}

	/**
	 * Returns whether a method is a Kotlin {@code suspend} function.
	 * @param method the method
	 * @return {@code true} for a suspending function
	 */
	static boolean isSuspending(Method method) {
		return KotlinDetector.isKotlinPresent() && KotlinDetector.isSuspendingFunction(method);
	}

	/**
	 * Returns whether a type is Kotlin's {@code Flow}.
	 * @param type the type
	 * @return {@code true} for a {@code Flow}
	 */
	static boolean isFlow(Class<?> type) {
		return FLOW != null && FLOW.isAssignableFrom(type);
	}

	/**
	 * Returns a {@code Flow} as a publisher: each subscription collects it once.
	 * @param flow the flow
	 * @return the publisher
	 */
	static Publisher<?> toPublisher(Object flow) {
		return flowAdapter().toPublisher(flow);
	}

	/**
	 * Returns a publisher as a {@code Flow}: each collection subscribes to it once.
	 * @param publisher the publisher
	 * @return the flow
	 */
	static Object toFlow(Publisher<?> publisher) {
		return flowAdapter().fromPublisher(publisher);
	}

	/**
	 * Calls a suspending function as a publisher, as Spring's proxy calls one.
	 * @param method the function
	 * @param target the bean
	 * @param arguments its arguments, without the continuation
	 * @return the publisher of its result
	 */
	static Publisher<?> callSuspending(Method method, Object target, @Nullable Object[] arguments) {
		return CoroutinesUtils.invokeSuspendingFunction(method, target, arguments);
	}

	private static ReactiveAdapter flowAdapter() {
		Class<?> flow = FLOW;
		Assert.state(flow != null, "kotlinx-coroutines-core is not on the class path");
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(flow);
		Assert.state(adapter != null, "kotlinx-coroutines-reactor is not on the class path");
		return adapter;
	}

}

package dev.ratelimit.method;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.reactivestreams.Publisher;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.util.context.ContextView;

import dev.ratelimit.rules.flow.RateLimitRequest;

/**
 * Limited methods that return a {@code Mono} or a {@code Flux} (or, in Kotlin, suspend functions and those returning a
 * {@code Flow}, through {@link KotlinCalls}): each subscription is one call, decided when it
 * subscribes without blocking; a refusal is the publisher's error signal, or the fallback's publisher. Loaded
 * only when Reactor is on the class path.
 */
final class ReactiveCalls {

	private ReactiveCalls() {
	}

	static boolean isMono(Class<?> type) {
		return Mono.class.isAssignableFrom(type);
	}

	static boolean isFlux(Class<?> type) {
		return Flux.class.isAssignableFrom(type);
	}

	static boolean isPublisher(Class<?> type) {
		return Publisher.class.isAssignableFrom(type);
	}

	static Mono<Object> mono(MethodRateLimitInterceptor.Call call) {
		return afterRetryTime(call, Mono.deferContextual((context) -> {
			MethodExchange exchange = exchange(call, context);
			AtomicReference<@Nullable Object> value = new AtomicReference<>();
			return Mono.fromFuture(call.decide(exchange), true)
				.flatMap((allowed) -> Mono.from(publisher(call, exchange, allowed, context)))
				.doOnNext(value::set)
				.doFinally((signal) -> call.settle(exchange, value.get(), signal == SignalType.ON_COMPLETE));
		}));
	}

	static Flux<Object> flux(MethodRateLimitInterceptor.Call call) {
		Flux<Object> decided = Flux.deferContextual((context) -> {
			MethodExchange exchange = exchange(call, context);
			return Mono.fromFuture(call.decide(exchange), true)
				.flatMapMany((allowed) -> publisher(call, exchange, allowed, context))
				.doFinally((signal) -> call.settle(exchange, null, signal == SignalType.ON_COMPLETE));
		});
		return Flux.defer(() -> {
			long wait = call.nanosToRetryTime();
			return (wait > 0) ? Mono.delay(Duration.ofNanos(wait)).thenMany(decided) : decided;
		});
	}

	/**
	 * Decides a subscription once the retry time of the last refusal has come: a resubscription by Spring's
	 * {@code @Retryable} after a refusal waits on a timer, no thread held.
	 */
	private static Mono<Object> afterRetryTime(MethodRateLimitInterceptor.Call call, Mono<Object> decided) {
		return Mono.defer(() -> {
			long wait = call.nanosToRetryTime();
			return (wait > 0) ? Mono.delay(Duration.ofNanos(wait)).then(decided) : decided;
		});
	}

	/**
	 * The subscription as the flow reads it: in the web request its Reactor context holds (WebFlux), else in the one
	 * bound to the subscribing thread (a servlet request).
	 */
	private static MethodExchange exchange(MethodRateLimitInterceptor.Call call, ContextView context) {
		ReactiveRateLimitCurrentRequest reactive = call.reactiveRequest();
		RateLimitRequest request = (reactive != null) ? reactive.current(context) : null;
		return (request != null) ? call.exchange(false, request) : call.exchange(false);
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> publisher(MethodRateLimitInterceptor.Call call, MethodExchange exchange,
			boolean allowed, ContextView context) {
		try {
			if (allowed) {
				Object result = call.proceed();
				if (result == null) {
					return Mono.empty();
				}
				// a Kotlin Flow, collected once per subscription
				return (result instanceof Publisher<?>) ? (Publisher<Object>) result
						: (Publisher<Object>) KotlinCalls.toPublisher(result);
			}
			Object answer = call.refused(exchange, context.hasKey(call.limited()));
			// what the fallback's publisher subscribes to (the method again, say) knows that it runs in the fallback
			if (answer == null) {
				return Mono.empty();
			}
			Publisher<Object> fallback = (answer instanceof Publisher<?>) ? (Publisher<Object>) answer
					: (Publisher<Object>) KotlinCalls.toPublisher(answer);
			return Flux.from(fallback).contextWrite((outer) -> outer.put(call.limited(), Boolean.TRUE));
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

}

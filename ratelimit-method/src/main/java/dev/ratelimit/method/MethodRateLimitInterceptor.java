package dev.ratelimit.method;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.rules.flow.CallEnd;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.RateLimitRequest;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;
import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.LogThrottle;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.expression.EvaluationContext;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Applies the {@link dev.ratelimit.RateLimited} annotations of a bean method around its calls, on the same
 * {@link RateLimitFlow} as every web entry point: a call the limits allow goes on; a refused one throws
 * {@link RateLimitExceededException}, or calls the method's fallback. A method returning a
 * {@code CompletionStage}, {@code Mono} or {@code Flux} is decided without blocking the caller. Inside Spring
 * Framework's {@code @Retryable}, the attempt after a refusal is decided not before the refusal's retry time (up to
 * {@linkplain #setRetryMaxWait a bound}).
 *
 * @since 0.1.0
 */
public final class MethodRateLimitInterceptor implements MethodInterceptor {

	private final Supplier<RateLimitRuleRegistry> rules;

	private final Supplier<RateLimitFlow> flow;

	private final Supplier<@Nullable RateLimitCurrentRequest> currentRequest;

	private final Supplier<@Nullable ReactiveRateLimitCurrentRequest> reactiveRequest;

	private final Supplier<Executor> executor;

	private final @Nullable BeanFactory beanFactory;

	private volatile Duration retryMaxWait = DEFAULT_RETRY_MAX_WAIT;

	/**
	 * The longest retry time the next attempt of a refused call waits for, unless
	 * {@linkplain #setRetryMaxWait set}.
	 * @since 0.1.0
	 */
	public static final Duration DEFAULT_RETRY_MAX_WAIT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(MethodRateLimitInterceptor.class);

	private static final LogThrottle DECISION_FAILURES = new LogThrottle();

	private final Map<MethodKey, LimitedMethod> methods = new ConcurrentHashMap<>();

	/**
	 * The limited methods whose fallback the current thread is running: a call of one of them that its own fallback
	 * makes through the proxy is refused with the exception when the limit refuses it, never answered by the fallback
	 * again (which would recurse until the stack overflows).
	 */
	private static final ThreadLocal<Set<LimitedMethod>> IN_FALLBACK = ThreadLocal
		.withInitial(() -> Collections.newSetFromMap(new IdentityHashMap<>()));

	/**
	 * Creates the interceptor; its collaborators are asked for at the first call, so that it can be created with
	 * the post-processor that applies it.
	 * @param rules the registry the methods' rules join
	 * @param flow takes each call through its rules
	 * @param currentRequest finds the web request a call is made in, or supplies {@code null} without a web stack
	 * that can tell
	 * @param reactiveRequest finds the web request a publisher is subscribed for, or supplies {@code null} without a
	 * reactive web stack
	 * @param executor where a method that must not block its caller goes on when its decision completes on
	 * another thread
	 * @param beanFactory resolves {@code @name} in SpEL expressions, or {@code null}
	 */
	public MethodRateLimitInterceptor(Supplier<RateLimitRuleRegistry> rules, Supplier<RateLimitFlow> flow,
			Supplier<@Nullable RateLimitCurrentRequest> currentRequest,
			Supplier<@Nullable ReactiveRateLimitCurrentRequest> reactiveRequest, Supplier<Executor> executor,
			@Nullable BeanFactory beanFactory) {
		this.rules = SingletonSupplier.of(rules);
		this.flow = SingletonSupplier.of(flow);
		this.currentRequest = currentRequest;
		this.reactiveRequest = reactiveRequest;
		this.executor = SingletonSupplier.of(executor);
		this.beanFactory = beanFactory;
	}

	/**
	 * Builds and checks the limits of a bean method once, registering its rules; the post-processor calls it for
	 * every limited method at startup so that a bad annotation stops the application.
	 * @param method the method
	 * @param targetClass the bean's class
	 * @throws dev.ratelimit.rules.InvalidRateLimitRuleException when an annotation is invalid
	 */
	void check(Method method, Class<?> targetClass) {
		limited(method, targetClass);
	}

	/**
	 * Sets the longest retry time that the next attempt of a refused call waits for: when Spring Framework's
	 * {@code @Retryable} retries a call its limits refused, the attempt is decided once the refusal's retry time has
	 * come, if that time is at most this long, else at once; {@link RateLimitRetryPredicate} does not retry such a
	 * refusal at all.
	 * @param retryMaxWait the bound, zero or more ({@link #DEFAULT_RETRY_MAX_WAIT} unless set)
	 * @throws IllegalArgumentException when it is negative
	 * @since 0.1.0
	 */
	public void setRetryMaxWait(Duration retryMaxWait) {
		if (retryMaxWait.isNegative()) {
			throw new IllegalArgumentException("The longest wait for a retry time (ratelimit.retry.max-wait) must be "
					+ "zero or more, not " + retryMaxWait + "; zero waits for no retry time");
		}
		this.retryMaxWait = retryMaxWait;
	}

	/**
	 * Returns the longest retry time that the next attempt of a refused call waits for.
	 * @return the bound set, or {@link #DEFAULT_RETRY_MAX_WAIT}
	 * @since 0.1.0
	 */
	public Duration getRetryMaxWait() {
		return this.retryMaxWait;
	}

	private LimitedMethod limited(Method method, Class<?> targetClass) {
		LimitedMethod known = this.methods.get(new MethodKey(method, targetClass));
		if (known != null) {
			return known;
		}
		return this.methods.computeIfAbsent(new MethodKey(method, targetClass), (key) -> {
			Method specific = AopUtils.getMostSpecificMethod(key.method(), key.targetClass());
			var limits = this.rules.get().forBeanMethod(specific, key.targetClass());
			return limits.rules().isEmpty() ? LimitedMethod.NONE : new LimitedMethod(specific, key.targetClass(), limits);
		});
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		if (target == null) {
			return invocation.proceed();
		}
		Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(target));
		LimitedMethod limited = limited(invocation.getMethod(), targetClass);
		if (!limited.isLimited()) {
			return invocation.proceed();
		}
		Call call = new Call(limited, invocation, target);
		return switch (limited.returns()) {
			case VALUE -> call.blocking();
			case FUTURE -> call.future();
			case MONO -> ReactiveCalls.mono(call);
			case FLUX -> ReactiveCalls.flux(call);
			case FLOW -> KotlinCalls.toFlow(ReactiveCalls.flux(call));
		};
	}

	/**
	 * One call of a limited method.
	 */
	final class Call {

		private final LimitedMethod limited;

		private final MethodInvocation invocation;

		private final Object target;

		private final Supplier<EvaluationContext> context;

		/** Whether the call is made by its own method's fallback, on the thread that runs it. */
		private final boolean inOwnFallback;

		Call(LimitedMethod limited, MethodInvocation invocation, Object target) {
			this.limited = limited;
			this.invocation = invocation;
			this.target = target;
			this.inOwnFallback = limited.fallback() != null && IN_FALLBACK.get().contains(limited);
			// the bean class's method: its parameter names are those the expressions were checked against
			this.context = SingletonSupplier.of(() -> MethodExpressions.context(limited.method(),
					invocation.getArguments(), target, MethodRateLimitInterceptor.this.beanFactory));
		}

		/** Decides the call on the caller's thread, then calls the method, its fallback, or throws. */
		@Nullable Object blocking() throws Throwable {
			// a retry of a refused call (Spring's @Retryable) is decided at the refusal's retry time, not before
			RetryTimes.await(this.invocation);
			MethodExchange exchange = exchange(true);
			boolean allowed;
			try {
				allowed = decide(exchange).join();
			}
			catch (CompletionException ex) {
				throw (ex.getCause() != null) ? ex.getCause() : ex;
			}
			if (!allowed) {
				return refused(exchange);
			}
			Object result = proceedSettling(exchange);
			settle(exchange, result, true);
			return result;
		}

		/** Calls the method; one that throws settles its call at once, keeping its reservations. */
		private @Nullable Object proceedSettling(MethodExchange exchange) throws Throwable {
			try {
				return this.invocation.proceed();
			}
			catch (Throwable ex) {
				settle(exchange, null, false);
				throw ex;
			}
		}

		/**
		 * Decides the call without blocking; the returned stage completes with the method's own. A decision Redis
		 * answers later goes on where {@link MethodExchange#resume} puts it: the request's event loop on WebFlux, else
		 * the application's task executor, never Redis's I/O thread.
		 */
		@Nullable Object future() throws Throwable {
			MethodExchange exchange;
			CompletableFuture<Boolean> decided;
			try {
				exchange = exchange(false);
				decided = decide(exchange);
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
			if (decided.isDone() && !decided.isCompletedExceptionally()) {
				// decided at once (a refusal remembered, say): as a direct call of the method would go
				if (!decided.join()) {
					return afterDecision(exchange, false);
				}
				return releasedWhenDone(exchange, proceedSettling(exchange));
			}
			return decided.<CompletionStage<?>>handle((allowed, failure) -> {
				if (failure != null) {
					// nothing else would tell: the caller may not wait for the future (a handler that answered already)
					decisionFailed(failure);
					return CompletableFuture.failedFuture(failure);
				}
				return afterDecision(exchange, allowed);
			}).thenCompose((stage) -> stage.thenApply((value) -> (Object) value));
		}

		private static Throwable cause(Throwable failure) {
			return (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
		}

		private void decisionFailed(Throwable failure) {
			long others = DECISION_FAILURES.tryLog();
			if (others >= 0) {
				logger.warn("The rate-limit decision of a call of " + this.limited.description()
						+ " failed, and the call was not made" + ((others > 0) ? " (and " + others
								+ " more in the last minute)" : ""), cause(failure));
			}
		}

		private CompletionStage<?> afterDecision(MethodExchange exchange, boolean allowed) {
			try {
				Object result = allowed ? this.invocation.proceed() : refused(exchange);
				CompletionStage<?> stage = (result != null) ? (CompletionStage<?>) result
						: CompletableFuture.completedFuture(null);
				return allowed ? releasedWhenDone(exchange, stage) : stage;
			}
			catch (Throwable ex) {
				settle(exchange, null, false);
				return CompletableFuture.failedFuture(ex);
			}
		}

		/**
		 * Gives back the call's slots of requests in flight when the stage it returned completes: the stage itself
		 * is returned, so that a caller gets the very future the method returned.
		 */
		private @Nullable Object releasedWhenDone(MethodExchange exchange, @Nullable Object result) {
			if (result instanceof CompletionStage<?> stage) {
				return releasedWhenDone(exchange, stage);
			}
			settle(exchange, result, true);
			return result;
		}

		private CompletionStage<?> releasedWhenDone(MethodExchange exchange, CompletionStage<?> stage) {
			AfterResponse after = exchange.takeAfterResponse();
			if (!after.isEmpty()) {
				stage.whenComplete((value, failure) -> settle(after, value, failure == null));
			}
			return stage;
		}

		/**
		 * Settles what a call took once its work is done: its slots of calls in flight are given back, and its
		 * reservations ({@code costFrom}) adjusted to the actual cost read from its result; a call that failed keeps
		 * the reserved cost.
		 * @param exchange the call's exchange
		 * @param result what it returned (a future's or a {@code Mono}'s value)
		 * @param succeeded whether it returned rather than failed
		 */
		void settle(MethodExchange exchange, @Nullable Object result, boolean succeeded) {
			AfterResponse after = exchange.takeAfterResponse();
			if (!after.isEmpty()) {
				settle(after, result, succeeded);
			}
		}

		private void settle(AfterResponse after, @Nullable Object result, boolean succeeded) {
			// a method has no status: its rules count none (count-statuses is refused on them)
			MethodRateLimitInterceptor.this.flow.get()
				.end(after, CallEnd.completed(200,
						succeeded ? this.limited.actualCosts(this.context, result) : ResponseCost.Actual.NONE), false);
		}

		/** The call as the flow reads it, in the web request bound to the calling thread, if any. */
		MethodExchange exchange(boolean mayBlock) {
			RateLimitCurrentRequest current = MethodRateLimitInterceptor.this.currentRequest.get();
			return exchange(mayBlock, (current != null) ? current.current() : null);
		}

		/** The call as the flow reads it, in a given web request. */
		MethodExchange exchange(boolean mayBlock, @Nullable RateLimitRequest request) {
			MethodExchange exchange = new MethodExchange(this.limited, this.context, request,
					(request != null) ? MethodRateLimitInterceptor.this.flow.get().inherited(request) : Map.of(), mayBlock,
					MethodRateLimitInterceptor.this.executor.get());
			// a decision that completes after the call was cancelled gives its slots back at once
			exchange.settleLate((after) -> MethodRateLimitInterceptor.this.flow.get().end(after, CallEnd.abandoned(), false));
			return exchange;
		}

		/** Finds the web request a publisher is subscribed for, from its Reactor context (WebFlux). */
		@Nullable ReactiveRateLimitCurrentRequest reactiveRequest() {
			return MethodRateLimitInterceptor.this.reactiveRequest.get();
		}

		CompletableFuture<Boolean> decide(MethodExchange exchange) {
			List<RateLimitRule> rules = this.limited.rules(this.context);
			return MethodRateLimitInterceptor.this.flow.get().apply(exchange, rules);
		}

		/**
		 * Calls the method once a subscription is allowed: each subscription of a publisher calls it anew, through
		 * the advice after this one.
		 */
		@Nullable Object proceed() throws Throwable {
			if (this.invocation instanceof ProxyMethodInvocation proxied) {
				return proxied.invocableClone().proceed();
			}
			return this.invocation.proceed();
		}

		/**
		 * Answers a refused call: its fallback's result, or the refusal thrown.
		 * @param exchange the call's exchange, which holds why it was refused
		 */
		@Nullable Object refused(MethodExchange exchange) throws Throwable {
			return refused(exchange, false);
		}

		/**
		 * Answers a refused call: its fallback's result, or the refusal thrown; a call its own method's fallback made
		 * gets the refusal, so that a fallback that calls the method again ends.
		 * @param exchange the call's exchange, which holds why it was refused
		 * @param inOwnFallback whether the subscriber's Reactor context says that the call is made by its method's
		 * fallback (a publisher subscribed later, on another thread)
		 */
		@Nullable Object refused(MethodExchange exchange, boolean inOwnFallback) throws Throwable {
			RuntimeException refusal = refusal(exchange);
			Fallbacks.Fallback fallback = this.limited.fallback();
			if (refusal instanceof RateLimitExceededException exceeded) {
				// what a retry of the invocation waits for (a fallback's answer is never retried)
				RetryTimes.refused(this.invocation, exceeded.getRetryAfter(),
						MethodRateLimitInterceptor.this.retryMaxWait);
			}
			if (fallback == null || this.inOwnFallback || inOwnFallback
					|| !(refusal instanceof RateLimitExceededException exceeded)) {
				throw refusal;
			}
			Set<LimitedMethod> running = IN_FALLBACK.get();
			boolean added = running.add(this.limited);
			try {
				return fallback.call(this.target, this.invocation.getArguments(), exceeded);
			}
			finally {
				if (added) {
					running.remove(this.limited);
				}
			}
		}

		/**
		 * Returns how long this subscription must wait before it is decided: a resubscription after a refusal (the
		 * retry of Spring's {@code @Retryable}) waits until the refusal's retry time.
		 */
		long nanosToRetryTime() {
			return RetryTimes.nanosToWait(this.invocation);
		}

		/** The method called, which names the Reactor context's mark of a publisher its fallback returned. */
		LimitedMethod limited() {
			return this.limited;
		}

		private RuntimeException refusal(MethodExchange exchange) {
			RateLimitRejection rejection = exchange.rejection();
			if (rejection instanceof RateLimitRejection.Limited refused) {
				List<AppliedLimit> violated = refused.violated();
				return new RateLimitExceededException(this.limited.ruleOf(violated.get(0).policy()),
						violated.stream()
							.map((limit) -> new RateLimitExceededException.Refusal(limit.policy(), limit.limit(),
									limit.decision()))
							.toList());
			}
			if (rejection instanceof RateLimitRejection.Unavailable) {
				return new RateLimiterUnavailableException("No rate-limit decision could be reached for a call of "
						+ this.limited.description() + ", and ratelimit.failure-mode is fail-closed: the call was refused",
						null);
			}
			if (rejection instanceof RateLimitRejection.MissingKey missing) {
				return new IllegalArgumentException("A call of " + this.limited.description()
						+ " has no value for the key of rate-limit rule '" + missing.rule().name() + "' ("
						+ missing.rule().key().spelling() + "), whose missing-key is reject");
			}
			return new IllegalStateException("A call of " + this.limited.description() + " was refused: " + rejection);
		}

	}

	private record MethodKey(Method method, Class<?> targetClass) {
	}

}

package dev.ratelimit.web.servlet;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.redis.RedisKeys;
import dev.ratelimit.web.servlet.RateLimitObserver.Outcome;

import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Applies every matching rule, from properties and from {@link dev.ratelimit.RateLimited} handlers, to
 * each request before its handler runs. A request passes only if every rule allows it; the first rule
 * that refuses it ends the check with 429 (rules after it are not charged). Every limited response
 * carries the rate-limit headers. When a limiter cannot decide, the failure mode applies: the request
 * passes ({@code fail-open}; in {@code local} mode the limiters decided in memory already) or gets 503
 * ({@code fail-closed}). The interceptor never fails a request on its own account.
 */
public class RateLimitInterceptor implements HandlerInterceptor {

	private static final Log logger = LogFactory.getLog(RateLimitInterceptor.class);

	private final List<RateLimitRule> rules;

	private final RateLimitRuleFactory ruleFactory;

	private final Map<Algorithm, RateLimiter> limiters;

	private final ClientAddressResolver addresses;

	private final RateLimitResponseWriter responses;

	private final FailureMode failureMode;

	private final RateLimitObserver observer;

	private final ConcurrentMap<String, ShadowLog> shadowLogs = new ConcurrentHashMap<>();

	private final ConcurrentMap<HandlerKey, List<RateLimitRule>> handlerRules = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, String> ruleSources = new ConcurrentHashMap<>();

	private final List<RateLimitRule> allRules = new CopyOnWriteArrayList<>();

	private static final long UNEXPECTED_LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final AtomicLong nextUnexpectedLog = new AtomicLong(System.nanoTime());

	/**
	 * Creates an interceptor.
	 * @param rules the rules that apply by path and method
	 * @param ruleFactory builds the rules of annotated handlers
	 * @param limiters the limiters, at most one per algorithm
	 * @param addresses resolves client addresses
	 * @param responses writes headers and problem responses
	 * @param failureMode what a request meets when no decision can be reached
	 * @throws InvalidRateLimitRuleException when a rule's algorithm has no limiter
	 */
	public RateLimitInterceptor(List<RateLimitRule> rules, RateLimitRuleFactory ruleFactory,
			List<? extends RateLimiter> limiters, ClientAddressResolver addresses, RateLimitResponseWriter responses,
			FailureMode failureMode) {
		this(rules, ruleFactory, limiters, addresses, responses, failureMode, RateLimitObserver.NONE);
	}

	/**
	 * Creates an interceptor that reports its decisions.
	 * @param rules the rules that apply by path and method
	 * @param ruleFactory builds the rules of annotated handlers
	 * @param limiters the limiters, at most one per algorithm
	 * @param addresses resolves client addresses
	 * @param responses writes headers and problem responses
	 * @param failureMode what a request meets when no decision can be reached
	 * @param observer learns of every decision, for metrics
	 * @throws InvalidRateLimitRuleException when a rule's algorithm has no limiter
	 */
	public RateLimitInterceptor(List<RateLimitRule> rules, RateLimitRuleFactory ruleFactory,
			List<? extends RateLimiter> limiters, ClientAddressResolver addresses, RateLimitResponseWriter responses,
			FailureMode failureMode, RateLimitObserver observer) {
		this.rules = List.copyOf(rules);
		this.ruleFactory = ruleFactory;
		this.limiters = new EnumMap<>(Algorithm.class);
		for (RateLimiter limiter : limiters) {
			this.limiters.putIfAbsent(limiter.algorithm(), limiter);
		}
		this.addresses = addresses;
		this.responses = responses;
		this.failureMode = failureMode;
		this.observer = observer;
		this.rules.forEach(this::register);
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws Exception {
		if (request.getDispatcherType() != DispatcherType.REQUEST) {
			return true;
		}
		List<RateLimitRule> applicable = applicableRules(request, handler);
		if (applicable.isEmpty()) {
			return true;
		}
		String clientAddress = this.addresses.resolve(request);
		List<AppliedLimit> applied = new ArrayList<>(applicable.size());
		for (RateLimitRule rule : applicable) {
			long started = System.nanoTime();
			String budgetId;
			List<RateLimitDecision> decisions;
			try {
				// a key resolver is application code: whatever it throws follows the failure mode too
				String keyValue = (rule.keyResolver() == this.addresses) ? clientAddress
						: rule.keyResolver().resolveKey(request);
				budgetId = rule.budgetId(keyValue, clientAddress);
				decisions = this.limiters.get(rule.algorithm()).tryAcquire(budgetId, rule.limits(), rule.cost());
			}
			catch (RuntimeException ex) {
				observe(rule, Outcome.ERROR, System.nanoTime() - started);
				if (!(ex instanceof RateLimiterUnavailableException)) {
					logUnexpected(ex);
				}
				// a rule in shadow mode never refuses, not even with 503
				if (this.failureMode == FailureMode.FAIL_CLOSED && !rule.shadow()) {
					this.responses.writeHeaders(response, applied);
					this.responses.writeUnavailable(request, response);
					return false;
				}
				continue;
			}
			long nanos = System.nanoTime() - started;
			List<AppliedLimit> violated = new ArrayList<>(0);
			for (int i = 0; i < decisions.size(); i++) {
				AppliedLimit limit = new AppliedLimit(rule.policyName(i), rule.limits().get(i), decisions.get(i));
				applied.add(limit);
				if (!limit.decision().allowed()) {
					violated.add(limit);
				}
			}
			if (violated.isEmpty()) {
				observe(rule, Outcome.ALLOWED, nanos);
			}
			else if (rule.shadow()) {
				observe(rule, Outcome.SHADOW_REJECTED, nanos);
				this.shadowLogs.computeIfAbsent(rule.name(), (name) -> new ShadowLog()).record(rule, budgetId);
			}
			else {
				observe(rule, Outcome.REJECTED, nanos);
				if (logger.isDebugEnabled()) {
					logger.debug("Rejected " + request.getMethod() + " " + request.getRequestURI() + " by rule '"
							+ rule.name() + "' for key " + RedisKeys.fingerprint(budgetId));
				}
				this.responses.writeHeaders(response, applied);
				this.responses.writeRejection(request, response, violated);
				return false;
			}
		}
		this.responses.writeHeaders(response, applied);
		return true;
	}

	/**
	 * Builds and checks the rules of a handler's {@link dev.ratelimit.RateLimited} annotations; called for
	 * every handler at startup so that a bad annotation stops the application from starting.
	 * @param handler the handler method
	 * @return the handler's rules
	 * @throws InvalidRateLimitRuleException when an annotation is invalid
	 */
	public List<RateLimitRule> rulesFor(HandlerMethod handler) {
		return this.handlerRules.computeIfAbsent(new HandlerKey(handler.getMethod(), handler.getBeanType()),
				(key) -> {
					List<RateLimitRule> built = this.ruleFactory.forHandler(key.method(), key.beanType());
					built.forEach(this::register);
					return List.copyOf(built);
				});
	}

	/**
	 * Returns the rules that apply by path and method.
	 * @return the rules
	 */
	public List<RateLimitRule> getRules() {
		return this.rules;
	}

	/**
	 * Returns every rule in force: those from properties, then those of annotated handlers.
	 * @return the rules
	 */
	public List<RateLimitRule> getAllRules() {
		return List.copyOf(this.allRules);
	}

	/**
	 * Returns the limiter that decides for an algorithm.
	 * @param algorithm the algorithm
	 * @return the limiter
	 */
	public RateLimiter limiterFor(Algorithm algorithm) {
		return this.limiters.get(algorithm);
	}

	private List<RateLimitRule> applicableRules(HttpServletRequest request, Object handler) {
		List<RateLimitRule> handlerLimits = (handler instanceof HandlerMethod method) ? rulesFor(method) : List.of();
		if (this.rules.isEmpty()) {
			return handlerLimits;
		}
		PathContainer path = path(request);
		String method = request.getMethod();
		List<RateLimitRule> applicable = new ArrayList<>(handlerLimits.size() + 1);
		for (RateLimitRule rule : this.rules) {
			if (rule.matches(path, method)) {
				applicable.add(rule);
			}
		}
		applicable.addAll(handlerLimits);
		return applicable;
	}

	private static PathContainer path(HttpServletRequest request) {
		if (ServletRequestPathUtils.hasParsedRequestPath(request)) {
			return ServletRequestPathUtils.getParsedRequestPath(request).pathWithinApplication();
		}
		return RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication();
	}

	private void register(RateLimitRule rule) {
		String existing = this.ruleSources.putIfAbsent(rule.name(), rule.source());
		if (existing == null) {
			this.allRules.add(rule);
			logger.info(rule.describe());
		}
		else if (!existing.equals(rule.source())) {
			throw new InvalidRateLimitRuleException(rule.name() + " (" + rule.source() + ")", "name", rule.name(),
					"it is already the name of the rule of " + existing
							+ "; rules never share a budget, so give each its own name");
		}
		if (!this.limiters.containsKey(rule.algorithm())) {
			throw new InvalidRateLimitRuleException(rule.name(), "algorithm",
					RateLimitRuleFactory.algorithmName(rule.algorithm()),
					"no RateLimiter bean implements it; the limiters need a RedisConnectionFactory "
							+ "(add spring-boot-starter-data-redis and set spring.data.redis.*) or declare a "
							+ "RateLimiter bean for this algorithm");
		}
	}

	private void observe(RateLimitRule rule, Outcome outcome, long nanos) {
		try {
			this.observer.onDecision(rule, outcome, nanos);
		}
		catch (RuntimeException ex) {
			// metrics must never fail a request
			logUnexpected(ex);
		}
	}

	private void logUnexpected(RuntimeException ex) {
		long now = System.nanoTime();
		long next = this.nextUnexpectedLog.get();
		if (now - next >= 0 && this.nextUnexpectedLog.compareAndSet(next, now + UNEXPECTED_LOG_INTERVAL_NANOS)) {
			logger.warn("The rate limiter failed unexpectedly; the request met ratelimit.failure-mode="
					+ this.failureMode.name().toLowerCase(Locale.ROOT).replace('_', '-')
					+ " (logged at most once a minute)", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("The rate limiter failed unexpectedly", ex);
		}
	}

	private record HandlerKey(Method method, Class<?> beanType) {
	}

	/**
	 * Logs a shadow rule's would-be rejections at most once a minute, with how many there were.
	 */
	private static final class ShadowLog {

		private final AtomicLong next = new AtomicLong(System.nanoTime());

		private final AtomicLong suppressed = new AtomicLong();

		void record(RateLimitRule rule, String budgetId) {
			long now = System.nanoTime();
			long due = this.next.get();
			if (now - due >= 0 && this.next.compareAndSet(due, now + UNEXPECTED_LOG_INTERVAL_NANOS)) {
				long others = this.suppressed.getAndSet(0);
				logger.info("Shadow rule '" + rule.name() + "' would have refused a request for key "
						+ RedisKeys.fingerprint(budgetId) + ((others > 0) ? " (and " + others
								+ " more in the last minute)" : "")
						+ "; it was let through");
			}
			else {
				this.suppressed.incrementAndGet();
			}
		}

	}

}
